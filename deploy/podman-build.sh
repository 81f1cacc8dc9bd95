#!/usr/bin/env bash
# Build and check the container image with Debian's podman where no Docker engine runs and no container
# registry is reachable (only the Debian mirror and the npm registry). Run as root from a checkout:
#
#   deploy/podman-build.sh base     a local stand-in for node:24-bookworm-slim: Debian bookworm (minbase,
#                                   debootstrap from the Debian mirror) + this machine's Node 24 and npm
#                                   in /usr/local + user node (1000), imported as $BASE
#   deploy/podman-build.sh build    the repository's Dockerfile as it is, with --build-arg NODE_IMAGE=$BASE
#   deploy/podman-build.sh check    run the image, call /healthz, /readyz and an ask, check the user, the
#                                   HEALTHCHECK, SIGTERM's exit code and the image size; prints each figure
#   deploy/podman-build.sh all      the three in turn
#
# With a registry (or a Docker engine) none of this is needed: `docker build -t outcome-question .` uses the
# public node:24-bookworm-slim. Measured runs are in docs/guides/operating.md ("Building the image").
#
# What this machine needs (Debian 12, root): apt-get install -y --no-install-recommends podman debootstrap runc.
# Everything podman makes stays under $WORK (its own storage, vfs driver: no overlay mounts needed).
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${WORK:-/var/tmp/oq-image}
BASE=${BASE:-localhost/oq-base:node24-bookworm}
IMAGE=${IMAGE:-localhost/outcome-question:latest}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PORT=${PORT:-18787}

# Podman's settings for a machine like this one (a VM with cgroup v1+v2 "hybrid" mounts and without
# CAP_SYS_RESOURCE): crun refuses hybrid cgroups, so runc with cgroupfs; podman lowers its own
# RLIMIT_NPROC to 32768 before starting the runtime, which then cannot raise it back to podman's default,
# so the limits are given at or under what the process already has; the host's network (no bridge or
# slirp needed to reach the Debian mirror and the npm registry during the build).
mkdir -p "$WORK"
cat >"$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
netns = "host"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
EOF
cat >"$WORK/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$WORK/storage"
runroot = "$WORK/run"
EOF
export CONTAINERS_CONF="$WORK/containers.conf" CONTAINERS_STORAGE_CONF="$WORK/storage.conf"

t0=0
start_clock() { t0=$(date +%s.%N); }
took() { printf '%s: %.1f s\n' "$1" "$(echo "$(date +%s.%N) - $t0" | bc)"; }

base() {
  local debian="$WORK/debian" root="$WORK/rootfs" nodebin npmdir
  nodebin=$(readlink -f "$(command -v node)")
  [ "$("$nodebin" -p 'process.versions.node.split(".")[0]')" = 24 ] || { echo "node on PATH is not Node 24" >&2; exit 1; }
  npmdir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  # Debian itself once (kept in $WORK/debian; delete it to fetch again), then a fresh copy to add to
  if [ ! -f "$debian/etc/debian_version" ]; then
    rm -rf "$debian"
    start_clock
    debootstrap --variant=minbase bookworm "$debian" "$MIRROR" >"$WORK/debootstrap.log" 2>&1
    rm -rf "$debian"/var/cache/apt/archives/*.deb "$debian"/var/lib/apt/lists/*
    took "debootstrap bookworm minbase"
  fi
  rm -rf "$root"
  cp -a "$debian" "$root"
  # what node:24-bookworm-slim holds on top of Debian: node, its headers (node-gyp builds against them,
  # no download), npm, and the user node (1000:1000)
  mkdir -p "$root/usr/local/bin" "$root/usr/local/include" "$root/usr/local/lib/node_modules"
  cp "$nodebin" "$root/usr/local/bin/node"
  cp -R "$(dirname "$(dirname "$nodebin")")/include/node" "$root/usr/local/include/"
  cp -R "$npmdir" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  local changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    --change 'ENV npm_config_nodedir=/usr/local' --change 'CMD ["node"]')
  # A machine whose way out is a TLS-inspecting proxy trusts that proxy's CA through NODE_EXTRA_CA_CERTS:
  # the build's npm ci needs it too (the image made with a public base never sees this file)
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    cp "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/extra-ca.pem"
    changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.pem')
  fi
  start_clock
  tar -C "$root" -c . | podman import "${changes[@]}" - "$BASE" >/dev/null
  took "podman import"
  podman run --rm "$BASE" sh -c 'echo "base: node $(node -v), npm $(npm -v), $(. /etc/os-release; echo "$PRETTY_NAME")"'
}

build() {
  start_clock
  # --format docker: the OCI image format has no HEALTHCHECK; podman drops it unless told to keep Docker's
  podman build --format docker --build-arg NODE_IMAGE="$BASE" -t "$IMAGE" -f Dockerfile . 2>&1 | tee "$WORK/build.log" | grep -E '^(STEP|COMMIT)'
  took "podman build"
  podman image inspect "$IMAGE" --format 'image size: {{.Size}} bytes; user {{.Config.User}}; healthcheck {{.Config.Healthcheck.Test}}'
  podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | sort
}

check() {
  local name=oq-check dataset=oq-check-data code sent key
  podman rm -f "$name" >/dev/null 2>&1 || true
  podman volume rm -f "$dataset" >/dev/null 2>&1 || true
  start_clock # podman run included: with the vfs driver it copies the image into the container first
  podman run -d --name "$name" -e PORT="$PORT" -e PENDING_WAIT_MS=0 -v "$dataset:/data" "$IMAGE" >/dev/null
  until curl -sf "localhost:$PORT/healthz" >/dev/null; do
    [ "$(podman inspect -f '{{.State.Running}}' "$name")" = true ] || { podman logs "$name"; exit 1; }
    sleep 0.2
  done
  took "start to first /healthz 200"
  echo "healthz: $(curl -s "localhost:$PORT/healthz")"
  echo "readyz:  $(curl -s -w ' (%{http_code})' "localhost:$PORT/readyz")"
  echo "process user: $(podman exec "$name" id)"
  echo "PID 1: $(podman exec "$name" cat /proc/1/cmdline | tr '\0' ' ')"
  podman healthcheck run "$name" && echo "healthcheck run: healthy (exit 0)"
  key=$(podman exec "$name" node dist/cli/keys.js create --workspace image --json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).api_key')
  local body='{"data":{"dataset_id":"sample:saas_churn"},"entity_column":"customer_id","subject_kind":"org","questions":{"q":{"type":"yesno","outcome_column":"churned"}},"cases":{"ids":["cust_0001"]}}'
  local reply task status
  start_clock
  reply=$(curl -s -H "authorization: Bearer $key" -H 'content-type: application/json' -d "$body" "localhost:$PORT/v1/ask")
  task=$(node -p 'JSON.parse(process.argv[1]).task_id ?? ""' "$reply")
  while [ -n "$task" ] && [ "$(node -p 'JSON.parse(process.argv[1]).status ?? ""' "$reply")" = pending ]; do
    sleep 0.2
    reply=$(curl -s -H "authorization: Bearer $key" -H 'content-type: application/json' -d "{\"task_id\":\"$task\"}" "localhost:$PORT/v1/poll")
  done
  took "ask (sample:saas_churn, cold: fit included)"
  node -e '
    const r = JSON.parse(process.argv[1]);
    const q = r.answers?.q;
    if (!q) { console.error("no answer:", process.argv[1]); process.exit(1); }
    const v = q.verdicts?.[0]?.verdict;
    console.log(`ask: state ${q.state}, p ${v?.cases?.[0]?.p}, core_hash ${r.core_hash.slice(0, 16)}..., ${q.verdicts?.length ?? 0} signed Verdict(s)`);
  ' "$reply"
  sent=$(date +%s.%N)
  podman stop --time 30 "$name" >/dev/null
  code=$(podman inspect -f '{{.State.ExitCode}}' "$name")
  printf 'SIGTERM (podman stop): exit code %s after %.1f s\n' "$code" "$(echo "$(date +%s.%N) - $sent" | bc)"
  podman logs "$name" 2>&1 | grep -c '"signal":"SIGTERM"' | sed 's/^/log lines naming SIGTERM: /'
  podman rm "$name" >/dev/null
  podman volume rm "$dataset" >/dev/null
  [ "$code" = 0 ]
}

case "${1:-}" in
  base) base ;;
  build) build ;;
  check) check ;;
  all) base && build && check ;;
  *)
    echo "usage: deploy/podman-build.sh base | build | check | all" >&2
    exit 2
    ;;
esac
