#!/usr/bin/env bash
# CI step: the service behind PgBouncer in transaction mode (docs/deploying.md,
# "PgBouncer"). Installs Debian's pgbouncer when missing, starts one of our own
# on a free port of 127.0.0.1 (config, auth file, log and pid in a temporary
# directory; the machine's pgbouncer service is left alone), pooling every
# database of the local Postgres (trust auth), and runs through it the test files
# whose code a transaction pooler changes (the list below says why each is there).
# The apps reach their database through the pooler
# (TEST_DATABASE_POOLER_URL) and Postgres itself as DATABASE_DIRECT_URL
# (test/helper.ts). Prints tap's summary; exits non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests' server: TEST_DATABASE_URL, else DATABASE_URL, else the local one (test/fixtures/local-servers.ts).
direct="${TEST_DATABASE_URL:-${DATABASE_URL:-$(node --import tsx --input-type=module --eval "import { LOCAL_DATABASE_URL } from './test/fixtures/local-servers.ts'; process.stdout.write(LOCAL_DATABASE_URL)")}}"
pg_host=$(node -e "console.log(new URL(process.argv[1]).hostname)" "$direct")
pg_port=$(node -e "console.log(new URL(process.argv[1]).port || 5432)" "$direct")
# A server that wants a password (.ci/run gives a fresh cluster's postgres one): PgBouncer logs in with it.
pg_password=$(node -e "console.log(decodeURIComponent(new URL(process.argv[1]).password))" "$direct")

if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "installing pgbouncer"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
fi
PATH="$PATH:/usr/sbin"

dir=$(mktemp -d /tmp/seller-api-pgbouncer-XXXXXX)
chmod 755 "$dir"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$pg_host port=$pg_port${pg_password:+ password=$pg_password}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 10
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
echo "\"postgres\" \"$pg_password\"" >"$dir/userlist.txt"
# PgBouncer refuses to run as root: as root, it switches to the postgres user.
as_user=()
if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; as_user=(-u postgres); fi
pgbouncer -d "${as_user[@]}" "$dir/pgbouncer.ini"
stop() {
  [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 1 50); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
echo "$(head -n 3 "$dir/pgbouncer.log" | grep -o 'PgBouncer [0-9.]*' || echo PgBouncer) in transaction mode on 127.0.0.1:$port"

pooler="postgres://postgres@127.0.0.1:$port/postgres"
# Test files given as arguments run instead of the list below.
files=("$@")
# Behind the pooler every statement is unnamed (no prepared statements), a session
# holds nothing, and LISTEN, NOTIFY and the migrations go to DATABASE_DIRECT_URL. Here:
#   topologies/pgbouncer          the pooler detected, the start refused without a direct URL
#   orders/orders                 the purchase path's statements and transactions, unnamed
#   orders/concurrency, events/concurrency  row locks and commit order across instances
#   events/long-poll              wake-ups through LISTEN on the direct URL, a dropped listener
#   events/retention              the cleanup's pg_advisory_xact_lock (transaction-scoped)
#   webhooks/instances, webhooks/killed-instance  leases (FOR UPDATE SKIP LOCKED) on shared
#                                 server connections, an instance killed mid-attempt
#   plugins/idempotency           the records table, one statement each, and its races
#   security/revocation           revocation notices through NOTIFY / LISTEN
#   chat-rules/buyer-messages, chat-rules/reminders  the rules' claims and cooldowns
#                                 across instances (issue 38 keeps them behind the pooler)
# The rest of the suite runs the same statements on Postgres directly (npm test).
[ ${#files[@]} -gt 0 ] || files=(
  test/topologies/pgbouncer.ts
  test/orders/orders.test.ts test/orders/concurrency.test.ts test/events/concurrency.test.ts
  test/events/long-poll.test.ts test/events/retention.test.ts
  test/webhooks/instances.test.ts test/webhooks/killed-instance.test.ts
  test/plugins/idempotency.test.ts test/security/revocation.test.ts
  test/chat-rules/buyer-messages.test.ts test/chat-rules/reminders.test.ts
)
# On Node 24 (.ci/node24.sh), as `npm test`: the Docker image's runtime, and the test processes'
# TypeScript stripped by Node itself (test/fixtures/typescript-imports.mjs).
TEST_DATABASE_URL="$direct" TEST_DATABASE_POOLER_URL="$pooler" bash .ci/node24.sh npx tap --reporter=tap "${files[@]}"
