# The service's image: a build stage (every package, npm run build) and a slim runtime stage holding dist/
# and the runtime packages only, run by an unprivileged user. The steps are deploy/image.sh's, which a
# test runs too. Build: docker build -t outcome-question . ; run: see deploy/compose.yaml.
# NODE_IMAGE: both stages' base, the public Node 24 image unless told otherwise (a mirror, a pinned digest,
# or one made locally where no registry is reachable: deploy/podman-build.sh).
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles when no prebuilt binary fits
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN deploy/image.sh install && deploy/image.sh assemble /app

FROM ${NODE_IMAGE}
ENV NODE_ENV=production PORT=8787 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8787
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["deploy/image.sh", "healthcheck"]
# The script execs node, so node is PID 1 and gets SIGTERM (docker stop) itself: with DATABASE_URL the server
# drains 8 s (SHUTDOWN_DRAIN_MS), then hands its tasks back and exits within its 10 s grace. docker stop's
# own wait is 10 s: run with --stop-timeout 30 (compose gives it 30 s: stop_grace_period).
CMD ["deploy/image.sh", "start"]
