#!/bin/sh
# The container image's steps, in one script that the Dockerfile runs and a test runs too
# (test/release/image-compose.test.ts), so what the image does is tested where no container engine runs.
#
#   deploy/image.sh install         in a checkout: every package, then npm run build (dist/)
#   deploy/image.sh assemble DIR    DIR gets what runs: dist/, package files, this script, and node_modules
#                                   pruned to the runtime packages (copied and pruned: no second compile
#                                   of better-sqlite3, no network)
#   deploy/image.sh start           in DIR: exec node dist/main.js (node is the process: signals reach it)
#   deploy/image.sh healthcheck     exit 0 when GET /healthz on PORT (8787) answers 200
set -eu
cmd=${1:-}
case "$cmd" in
  install)
    npm ci --no-audit --no-fund
    npm run build
    ;;
  assemble)
    out=${2:?usage: deploy/image.sh assemble DIR}
    [ -f dist/main.js ] || { echo "dist/ is not built: run deploy/image.sh install (or npm run build) first" >&2; exit 1; }
    mkdir -p "$out/deploy"
    cp -R dist package.json package-lock.json LICENSE "$out/"
    cp deploy/image.sh "$out/deploy/"
    cp -R node_modules "$out/"
    (cd "$out" && npm prune --omit=dev --no-audit --no-fund >/dev/null)
    ;;
  start)
    exec node dist/main.js
    ;;
  healthcheck)
    exec node -e '
      fetch(`http://127.0.0.1:${process.env.PORT || 8787}/healthz`, { signal: AbortSignal.timeout(4000) })
        .then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1));
    '
    ;;
  *)
    echo "usage: deploy/image.sh install | assemble DIR | start | healthcheck" >&2
    exit 2
    ;;
esac
