#!/usr/bin/env bash
# CI step: Redis behind Sentinel, the primary killed under load
# (test/topologies/redis-sentinel-failover.ts starts its own primary, replica
# and three Sentinels on free ports of 127.0.0.1, in a temporary directory; the
# machine's Redis on 6379 is left alone). A CI step rather than part of
# `npm test`, which must run where only Postgres and Redis are installed.
# Installs Debian's redis-server / redis-sentinel when missing. Prints tap's
# summary; exits non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-sentinel >/dev/null || ! command -v redis-server >/dev/null; then
  echo "installing redis-server and redis-sentinel"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-sentinel >/dev/null
fi
echo "$(redis-server --version | grep -o 'v=[0-9.]*' | sed 's/v=/Redis /') with Sentinel"
npx tap --reporter=tap --timeout=240 test/topologies/redis-sentinel-failover.ts
