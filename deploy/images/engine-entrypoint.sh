#!/bin/bash
# PostgreSQL with DocumentDB, then FerretDB on 27017, in one container. Whichever stops first
# stops the other, so the container exits and its restart policy starts both again.
set -euo pipefail
PGDATA=/data/db/postgres
bin=/usr/lib/postgresql/15/bin

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  # trust: PostgreSQL listens on the container's own loopback, which only FerretDB shares.
  "$bin/initdb" -D "$PGDATA" -U postgres -E UTF8 --auth=trust --no-instructions >/dev/null
  echo "include '/etc/pix/engine.conf'" >>"$PGDATA/postgresql.conf"
fi
"$bin/postgres" -D "$PGDATA" &
pg=$!
trap 'kill -TERM "$pg" ${ferretdb:+"$ferretdb"} 2>/dev/null || true' TERM INT
until "$bin/pg_isready" -q -h 127.0.0.1 -U postgres; do
  kill -0 "$pg" 2>/dev/null || exit 1
  sleep 0.2
done
"$bin/psql" -q -h 127.0.0.1 -U postgres -d postgres -c 'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE'
# A volume made before engine.conf raised documentdb.indexBuildScheduleInSec keeps the schedule it
# was created with (tools/devstack/src/postgres.ts says why the index build jobs run every minute).
"$bin/psql" -q -h 127.0.0.1 -U postgres -d postgres -c "SELECT documentdb_api_internal.schedule_background_index_build_jobs(true) WHERE EXISTS (SELECT 1 FROM cron.job WHERE jobname LIKE 'documentdb_index_build_task_%' AND schedule <> '* * * * *')" >/dev/null

# No MongoDB logins, as compose's mongo runs: the engine is reachable on compose's network only.
/usr/local/bin/ferretdb --postgresql-url=postgres://postgres@127.0.0.1:5432/postgres \
  --listen-addr=:27017 --debug-addr=127.0.0.1:8088 --no-auth --state-dir=/data/db \
  --telemetry=disable --log-level=WARN &
ferretdb=$!
status=0
wait -n "$pg" "$ferretdb" || status=$?
kill -TERM "$pg" "$ferretdb" 2>/dev/null || true
wait || true
exit "$status"
