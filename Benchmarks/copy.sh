#!/usr/bin/env bash
# Moving up (issue #26), run by hand, never in CI: how long `flagserver copy` takes to move a SQLite database of
# COUNT versions (default 85,000: flags/production.json with its number added, ~6.9 KB each, alternately in
# production and staging, each with its audit line) into an empty database of a throw-away PostgreSQL cluster
# (default settings, fsync on, unix socket). The peer, same run, same cluster, same schema: the same rows moved by
# sqlite3's CSV output into psql's \copy in one transaction, with no check of the source, no comparison, no hash
# and no sequences: the lower bound of moving those bytes. Prints both times, the ratio ours/peer (time) and the
# copy's peak resident memory.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # GNU time for the peak memory, and the build's libraries on a fresh machine
swift build -c release --product flagstore-bench >/dev/null
swift build -c release --product flagserver >/dev/null
BIN=$(swift build -c release --show-bin-path)
COUNT=${COUNT:-85000}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/copy-bench.XXXXXX")
chmod 755 "$DIR"
PGBIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
AS=()
if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); fi   # PostgreSQL refuses to run as root
mkdir "$DIR/pg"
if [ "$(id -u)" = 0 ]; then chown postgres "$DIR/pg"; fi
PORT=$(( RANDOM % 20000 + 30000 ))
"${AS[@]}" "$PGBIN/initdb" -D "$DIR/pg/data" -U postgres -A trust --no-locale -E UTF8 >/dev/null
"${AS[@]}" "$PGBIN/pg_ctl" -D "$DIR/pg/data" -l "$DIR/pg/log" -w -o "-k $DIR/pg -p $PORT -c listen_addresses=''" start >/dev/null
trap '"${AS[@]}" "$PGBIN/pg_ctl" -D "$DIR/pg/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
uri() { echo "postgresql:///$1?host=$DIR/pg&port=$PORT&user=postgres"; }
sql() { psql -X -q -v ON_ERROR_STOP=1 -h "$DIR/pg" -p "$PORT" -U postgres "$@"; }
now() { date +%s.%N; }
sql -d postgres -c "CREATE DATABASE ours" -c "CREATE DATABASE peer"

"$BIN/flagstore-bench" fill "$DIR/flags.sqlite" "$COUNT" flags/production.json
echo "source: $(du -m "$DIR/flags.sqlite" | cut -f1) MB, $(sqlite3 "$DIR/flags.sqlite" 'SELECT count(*) FROM versions') versions," \
     "$(sqlite3 "$DIR/flags.sqlite" 'SELECT count(*) FROM audit') audit lines"
sync

start=$(now)
/usr/bin/time -f "flagserver copy: peak resident memory %M KB" "$BIN/flagserver" --database "$DIR/flags.sqlite" copy --to "$(uri ours)"
ours=$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')

# The peer writes into the schema flagserver creates (any command that opens the store migrates it).
"$BIN/flagserver" --database "$(uri peer)" token list >/dev/null
start=$(now)
{
  echo "BEGIN;"
  echo "DELETE FROM meta; DELETE FROM environments;"
  for table in environments meta tokens audit webhooks policies versions webhook_deliveries changes webhook_attempts \
      appstore_notifications appstore_keys; do
    columns=$(sqlite3 "$DIR/flags.sqlite" "SELECT group_concat(name, ', ') FROM pragma_table_info('$table')")
    select=$(sqlite3 "$DIR/flags.sqlite" "SELECT group_concat(CASE type WHEN 'BLOB' THEN '''\\x'' || lower(hex(' || name || '))' ELSE name END, ', ') FROM pragma_table_info('$table')")
    sqlite3 -csv "$DIR/flags.sqlite" "SELECT $select FROM $table" >"$DIR/$table.csv"
    echo "\\copy $table ($columns) FROM '$DIR/$table.csv' WITH (FORMAT csv)"
  done
  echo "COMMIT;"
} >"$DIR/peer.sql"
sql -d peer -f "$DIR/peer.sql"
peer=$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')
copied=$(sql -d peer -A -t -c "SELECT count(*) FROM versions")
[ "$copied" = "$(sqlite3 "$DIR/flags.sqlite" 'SELECT count(*) FROM versions')" ] || { echo "peer copied $copied versions" >&2; exit 1; }

printf 'flagserver copy: %.1f s (%d versions)\n' "$ours" "$COUNT"
printf 'peer (sqlite3 CSV into psql \\copy, one transaction, no checks): %.1f s\n' "$peer"
printf 'ratio ours/peer (time): %.2fx\n' "$(awk -v a="$ours" -v b="$peer" 'BEGIN { print a / b }')"
