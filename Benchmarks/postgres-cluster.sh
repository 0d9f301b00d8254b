#!/usr/bin/env bash
# flagserver on PostgreSQL against flagserver on SQLite (issue #26), run by hand (never in CI); everything in ONE
# run on this machine, each PostgreSQL figure with its SQLite peer measured in the same run:
#   1. document GETs per node: wrk against one node of three on PostgreSQL and against the SQLite node, the same
#      document (200, and 304 with If-None-Match), rounds alternating; req/s, p99, server CPU per request.
#   2. event latency: SUBSCRIBERS (10,000) event streams held by Benchmarks/sse-fanout; FLIPS PUTs, each timed
#      from the PUT's answer to every subscriber's read of its event (p50, p99, max). SQLite: one node holds
#      them all. PostgreSQL: spread over three nodes, the PUTs on one of them; the figure that matters is the
#      other two nodes' subscribers (the event crosses the database: NOTIFY, then the node's catch-up).
#   3. durable flips per second: PUT of one flag's value through the HTTP API (a new version, acknowledged after
#      the commit, which waits for the primary's fsync and its synchronous standby's), wrk with PUT_CONNECTIONS connections as Benchmarks/flagserver-vs-nginx.sh does: SQLite one
#      node, PostgreSQL one node, PostgreSQL three nodes with the connections spread over them (the same flag on
#      every node, no If-Match). Acknowledged = 2xx; non-2xx answers counted by cause; CPU per flip of flagserver
#      and of PostgreSQL (every process of the primary and its standby), flips per group commit.
#   4. seconds without writes after a promotion: a primary with a synchronous standby (synchronous_standby_names
#      '*', synchronous_commit on) on loopback, flagserver given both with target_session_attrs=read-write, one
#      client flipping as fast as acknowledgements come; SIGKILL of every process of the primary, `pg_ctl
#      promote` of the standby; the longest time between two acknowledged writes around it (PostgreSQL's share
#      and flagserver's read from the promoted server's log), FAILOVERS times (the killed one rebuilt as the new
#      standby in between); then every acknowledged version is looked up on the last primary.
#   5. cold start to "listening" with COLD_VERSIONS (85,000) versions stored, PostgreSQL and SQLite alternating.
#
# Usage (a fresh Debian machine; PostgreSQL from Debian's `postgresql` package, run as the calling user, or as the
# `postgres` system user through runuser when called as root; throw-away clusters in a temp dir on free
# loopback ports, fsync on, stopped and removed at exit):
#   ./scripts/bootstrap --bench && Benchmarks/postgres-cluster.sh      # about 10 minutes on 2 cores
#   Benchmarks/postgres-cluster.sh --quick                             # about 3 minutes: shorter runs, 1 round,
#                                                                      # 1 failover, 20,000 versions for the cold start
# Tunables (environment): DURATION (s per wrk run), GET_ROUNDS, FLIP_ROUNDS, CONNECTIONS (GET), PUT_CONNECTIONS,
# SUBSCRIBERS, FLIPS, FAILOVERS, COLD_VERSIONS, COLD_STARTS, PG_BIN (default: newest /usr/lib/postgresql/*/bin);
# BIN (another flagserver build to measure, default the release build); PG_SETTINGS (extra `-c name=value` options for every cluster); ONLY=get,events,flips,failover,cold runs those parts
# alone; KEEP_DIR=1 keeps the temp dir (servers' logs) at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --quick ]; then
  QUICK=1; shift
else
  QUICK=""
fi
[ $# = 0 ] || { echo "usage: Benchmarks/postgres-cluster.sh [--quick]" >&2; exit 64; }
./scripts/bootstrap --bench   # wrk, curl, python3, PostgreSQL and the build's libraries on a fresh machine
DURATION=${DURATION:-${QUICK:+4}}; DURATION=${DURATION:-10}
GET_ROUNDS=${GET_ROUNDS:-${QUICK:+1}}; GET_ROUNDS=${GET_ROUNDS:-3}
FLIP_ROUNDS=${FLIP_ROUNDS:-${QUICK:+1}}; FLIP_ROUNDS=${FLIP_ROUNDS:-2}
FAILOVERS=${FAILOVERS:-${QUICK:+1}}; FAILOVERS=${FAILOVERS:-5}
COLD_VERSIONS=${COLD_VERSIONS:-${QUICK:+20000}}; COLD_VERSIONS=${COLD_VERSIONS:-85000}
FLIPS=${FLIPS:-${QUICK:+3}}; FLIPS=${FLIPS:-5}
COLD_STARTS=${COLD_STARTS:-5}
CONNECTIONS=${CONNECTIONS:-64}
PUT_CONNECTIONS=${PUT_CONNECTIONS:-16}
SUBSCRIBERS=${SUBSCRIBERS:-10000}
for tool in wrk curl python3 cc; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 2; }; done
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1)}
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL server binaries not found (PG_BIN=$PG_BIN): ./scripts/bootstrap installs postgresql" >&2; exit 2; }
# Each subscriber is a descriptor in the fan-out program and one in a server (separate processes).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(($(ulimit -n) >= SUBSCRIBERS + 1100)) || { echo "ulimit -n is $(ulimit -n): too few for $SUBSCRIBERS subscribers" >&2; exit 2; }

swift build -c release --product flagserver >/dev/null
BIN=${BIN:-$PWD/.build/release/flagserver}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/postgres-cluster.XXXXXX")
chmod 755 "$DIR"
if [ "$(id -u)" = 0 ]; then
  # PostgreSQL refuses to run as root: as the tests do, its files and commands belong to the `postgres` user.
  id postgres >/dev/null 2>&1 || { echo "running as root needs the postgres system user (Debian's postgresql package)" >&2; exit 2; }
  PG_USER=postgres
  as_pg() { (cd "$DIR" && runuser -u postgres -- "$@"); }
else
  PG_USER=$(id -un)
  as_pg() { (cd "$DIR" && "$@"); }
fi

declare -A NODE_PID=() NODE_PORT=() PG_PORT=()
FANOUT_PID="" FLIPPER_PID=""
cleanup() {
  set +e
  exec 3>&-
  [ -n "$FANOUT_PID" ] && kill "$FANOUT_PID" 2>/dev/null && wait "$FANOUT_PID" 2>/dev/null
  [ -n "$FLIPPER_PID" ] && kill "$FLIPPER_PID" 2>/dev/null && wait "$FLIPPER_PID" 2>/dev/null
  for name in "${!NODE_PID[@]}"; do kill "${NODE_PID[$name]}" 2>/dev/null; wait "${NODE_PID[$name]}" 2>/dev/null; done
  for name in "${!PG_PORT[@]}"; do as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg-$name/data" -m immediate -w stop >/dev/null 2>&1; done
  if [ -n "${KEEP_DIR:-}" ]; then echo "kept $DIR" >&2; else rm -rf "$DIR"; fi
}
trap cleanup EXIT
ONLY=${ONLY:-get,events,flips,failover,cold}
part() { [[ ",$ONLY," == *",$1,"* ]]; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
note() { echo "$*" >>"$DIR/summary.txt"; }   # a line for the summary at the end

# ---- PostgreSQL clusters: NAME is a directory $DIR/pg-NAME (data/, log, socket), PG_PORT[NAME] its TCP port.
pg_start() {  # NAME
  local d=$DIR/pg-$1
  # fsync and synchronous_commit stay on (the defaults): a flip is acknowledged after a durable commit, as on SQLite.
  as_pg "$PG_BIN/pg_ctl" -D "$d/data" -l "$d/log" -w -t 120 \
    -o "-k $d -p ${PG_PORT[$1]} -c listen_addresses=127.0.0.1 -c max_connections=200 ${PG_SETTINGS:-}" start >/dev/null
}
pg_new() {  # NAME [PRIMARY]: a new cluster (initdb), or a streaming standby of PRIMARY (pg_basebackup -R); started
  local d=$DIR/pg-$1
  rm -rf "$d"; mkdir -p "$d"
  [ "$(id -u)" = 0 ] && chown postgres "$d"
  [ -n "${PG_PORT[$1]:-}" ] || PG_PORT[$1]=$(free_port)
  if [ -z "${2:-}" ]; then
    as_pg "$PG_BIN/initdb" -D "$d/data" -U "$PG_USER" -A trust --no-locale -E UTF8 >"$d/initdb.log" 2>&1 \
      || { cat "$d/initdb.log" >&2; exit 1; }
  else
    as_pg "$PG_BIN/pg_basebackup" -D "$d/data" -h 127.0.0.1 -p "${PG_PORT[$2]}" -U "$PG_USER" -R -X stream --checkpoint=fast \
      >"$d/basebackup.log" 2>&1 || { cat "$d/basebackup.log" >&2; exit 1; }
    # The primary's synchronous_standby_names came along: a promoted standby would wait for a standby it does not have.
    as_pg sed -i '/^synchronous_standby_names/d' "$d/data/postgresql.auto.conf"
  fi
  pg_start "$1"
}
pg_sql() {  # NAME SQL [DATABASE]: one statement, unaligned output
  as_pg "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "${PG_PORT[$1]}" -U "$PG_USER" -d "${3:-postgres}" -c "$2"
}
pg_kill() {  # NAME: SIGKILL the postmaster and every child at once, as when its machine dies
  local postmaster
  postmaster=$(head -1 "$DIR/pg-$1/data/postmaster.pid")
  kill -9 "$postmaster" $(ps -o pid= --ppid "$postmaster") 2>/dev/null || true
}
pg_uri() {  # NAME... -> a URI over the clusters' loopback ports (several: libpq's multi-host form)
  local hosts="" name
  for name in "$@"; do hosts+="${hosts:+,}127.0.0.1:${PG_PORT[$name]}"; done
  echo "postgresql://$PG_USER@$hosts/flags${2:+?target_session_attrs=read-write&connect_timeout=2}"
}

pg_sync() {  # PRIMARY: makes its standby synchronous and waits until it is
  pg_sql "$1" "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
  pg_sql "$1" "SELECT pg_reload_conf()" >/dev/null
  for _ in $(seq 600); do
    [ "$(pg_sql "$1" "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] && return 0
    sleep 0.1
  done
  echo "the standby of $1 never became synchronous" >&2; exit 1
}

# ---- flagserver nodes: NODE_PORT[NAME], NODE_PID[NAME]; output in $DIR/NAME.out, log (warnings) in $DIR/NAME.err.
start_node() {  # NAME DATABASE [options...]
  local name=$1 database=$2 port=""; shift 2
  : >"$DIR/$name.out"
  "$BIN" --port 0 --database "$database" --flags-dir flags --log-level warning --console-dir off "$@" \
    >"$DIR/$name.out" 2>>"$DIR/$name.err" &
  NODE_PID[$name]=$!
  for _ in $(seq 1 1200); do
    port=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$DIR/$name.out")
    [ -n "$port" ] && { NODE_PORT[$name]=$port; return 0; }
    kill -0 "${NODE_PID[$name]}" 2>/dev/null || break
    sleep 0.05
  done
  echo "flagserver $name did not start: $(tail -5 "$DIR/$name.err")" >&2; exit 1
}
stop_node() { kill -TERM "${NODE_PID[$1]}"; wait "${NODE_PID[$1]}" || true; unset "NODE_PID[$1]"; }
doc_url() { echo "http://127.0.0.1:${NODE_PORT[$1]}/v1/environments/production/document"; }
version_of() { curl -sf "$(doc_url "$1")" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])'; }

# wrk output -> "req/s p99_ms non2xx requests seconds"
summarize() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)] if m else 0.0
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
total = re.search(r"(\d+) requests in ([\d.]+)(m?s)", text)
seconds = float(total.group(2)) * (0.001 if total.group(3) == "ms" else 1.0)
print("%.0f %.3f %s %s %.3f" % (rps, p99, bad.group(1) if bad else "0", total.group(1), seconds))
PY
}
cpu_ticks() { local t=0 pid; for pid in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.2f' % (a / b) if b else 'n/a')" "$1" "$2"; }

echo "== machine: $(nproc) cores, load average $(load) before the run; $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Benchmarks || echo ' (with local changes)')"
echo "== PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') ($PG_BIN), fsync on, synchronous_commit on with a synchronous standby, TCP on 127.0.0.1${PG_SETTINGS:+, $PG_SETTINGS}; flagserver release build"
note "load average before: $(load)"

# ---- the stores: a SQLite file and one PostgreSQL cluster, each seeded from flags/ by its first node
pg_new main
pg_sql main "CREATE DATABASE flags"
# Every flip waits for a synchronous standby too (as deploy/cluster runs: Patroni with synchronous_mode), so a flip
# acknowledged is on two PostgreSQL servers.
pg_new main-standby main
pg_sync main
[ "$(pg_sql main "SHOW synchronous_commit")" = on ] || { echo "synchronous_commit is not on" >&2; exit 1; }
SQLITE_DB=$DIR/flags.sqlite
PG_DB=$(pg_uri main)
start_node sqlite "$SQLITE_DB" --max-connections $((SUBSCRIBERS + 1000)) --max-streams $((SUBSCRIBERS + 100))
for n in 1 2 3; do start_node "pg$n" "$PG_DB" --max-connections $((SUBSCRIBERS + 1000)) --max-streams $((SUBSCRIBERS + 100)); done
SQLITE_TOKEN=$("$BIN" --database "$SQLITE_DB" token create --name bench --role writer | grep '^sfl_')
PG_TOKEN=$("$BIN" --database "$PG_DB" token create --name bench --role writer | grep '^sfl_')
# A bare value only flips an existing flag: create the counter with its full definition first.
make_counter() {  # node token
  curl -sf -o /dev/null -X PUT "http://127.0.0.1:${NODE_PORT[$1]}/v1/environments/production/flags/benchCounter" \
    -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -H 'X-Change-Message: bench counter' \
    -d '{"type": "integer", "default": 0}'
}
put_script() { Benchmarks/flip-script.sh "$2" "$3" >"$1"; }  # file token base (base keeps wrk processes apart)
make_counter sqlite "$SQLITE_TOKEN"
make_counter pg1 "$PG_TOKEN"
put_script "$DIR/put-sqlite.lua" "$SQLITE_TOKEN" 0
for n in 1 2 3; do put_script "$DIR/put-pg$n.lua" "$PG_TOKEN" $((n * 1000000000)); done

# ---- 1. document GETs per node
part_get() {
  curl -sf "$(doc_url sqlite)" -o "$DIR/doc-sqlite.json"
  curl -sf "$(doc_url pg1)" -o "$DIR/doc-pg.json"
  python3 - "$DIR/doc-sqlite.json" "$DIR/doc-pg.json" <<'PY' || { echo "the two stores serve different documents" >&2; exit 1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert (a["version"], a["contentHash"]) == (b["version"], b["contentHash"]), (a["version"], b["version"])
PY
  etag_of() { curl -sfI "$(doc_url "$1")" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r'; }
  SQLITE_ETAG=$(etag_of sqlite); PG_ETAG=$(etag_of pg1)
  run_wrk() {  # label node [header] -> "req/s p99_ms non2xx cpu_us_per_request"
    local out="$DIR/wrk-$1.txt" node=$2 before after
    shift 2
    before=$(cpu_ticks "${NODE_PID[$node]}")
    wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency ${1:+-H "$1"} "$(doc_url "$node")" >"$out"
    after=$(cpu_ticks "${NODE_PID[$node]}")
    read -r rps p99 bad total _ < <(summarize "$out")
    echo "$rps $p99 $bad $(awk -v t=$((after - before)) -v n="$total" -v u="$TICK_US" 'BEGIN{printf "%.2f", (n>0)? t*u/n : 0}')"
  }
  # The read path never asks the database: count the flags database's transactions while the PostgreSQL node serves.
  xacts() { pg_sql main "SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database WHERE datname = 'flags'"; }
  pg_xacts=0 pg_requests=0
  pg_get_run() {
    local x0 x1
    x0=$(xacts)
    read -r pg pgp99 pgbad pgcpu < <(run_wrk "pg$kind" pg1 "$pg_header")
    x1=$(xacts)
    pg_xacts=$((pg_xacts + x1 - x0))
    pg_requests=$((pg_requests + $(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$DIR/wrk-pg$kind.txt")))
  }
  echo
  echo "== 1. document GET per node ($(wc -c <"$DIR/doc-sqlite.json") bytes, the same version on both), wrk -t2 -c$CONNECTIONS -d${DURATION}s, $GET_ROUNDS rounds; PostgreSQL: node 1 of 3 running"
  printf "%-10s %12s %9s %9s %12s %9s %9s %8s %8s\n" "" "PostgreSQL" "p99 ms" "cpu us" "SQLite" "p99 ms" "cpu us" "req x" "cpu x"
  for round in $(seq "$GET_ROUNDS"); do
    for kind in 200 304; do
      pg_header=""; sq_header=""
      [ "$kind" = 304 ] && { pg_header="If-None-Match: $PG_ETAG"; sq_header="If-None-Match: $SQLITE_ETAG"; }
      if [ $((round % 2)) = 1 ]; then
        pg_get_run
        read -r sq sqp99 sqbad sqcpu < <(run_wrk "sq$kind" sqlite "$sq_header")
      else
        read -r sq sqp99 sqbad sqcpu < <(run_wrk "sq$kind" sqlite "$sq_header")
        pg_get_run
      fi
      [ "$pgbad$sqbad" = 00 ] || echo "warning: non-2xx/3xx answers: PostgreSQL $pgbad, SQLite $sqbad"
      echo "$kind $pg $pgp99 $pgcpu $sq $sqp99 $sqcpu" >>"$DIR/get-rounds.txt"
      printf "%-10s %12s %9s %9s %12s %9s %9s %7sx %7sx\n" "$kind r$round" "$pg" "$pgp99" "$pgcpu" "$sq" "$sqp99" "$sqcpu" \
        "$(ratio "$pg" "$sq")" "$(ratio "$pgcpu" "$sqcpu")"
    done
  done
  python3 - "$DIR/get-rounds.txt" <<'PY' | tee -a "$DIR/summary.txt"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kind, *values = line.split()
    rows.setdefault(kind, []).append([float(v) for v in values])
for kind, runs in rows.items():
    pg, pgp, pgc, sq, sqp, sqc = (statistics.median(r[i] for r in runs) for i in range(6))
    print("GET %s per node (median of %d): PostgreSQL %.0f req/s (p99 %.2f ms, %.2f us CPU), SQLite %.0f req/s (p99 %.2f ms, %.2f us CPU): %.2fx requests, %.2fx CPU"
          % (kind, len(runs), pg, pgp, pgc, sq, sqp, sqc, pg / sq, pgc / sqc if sqc else 0))
PY
  echo "(req x > 1: the PostgreSQL node serves more; cpu = the node's CPU microseconds per request; goal: equal)"
  note "GET: transactions on the flags database while the PostgreSQL node answered $pg_requests GETs: $pg_xacts (the three nodes' sync rounds, about one a second each; statistics lag up to a few seconds)"
  tail -1 "$DIR/summary.txt"
}

# ---- 2. event latency with SUBSCRIBERS streams
part_events() {
  cc -O2 -Wall -o "$DIR/sse-fanout" Benchmarks/sse-fanout/sse-fanout.c
  fanout() {  # label put-node token subscriber-ports: runs sse-fanout until its figures are out, then closes its streams
    local label=$1 put_node=$2 token=$3 ports=$4
    rm -f "$DIR/hold"; mkfifo "$DIR/hold"
    "$DIR/sse-fanout" "${NODE_PORT[$put_node]}" production "$token" "$SUBSCRIBERS" "$FLIPS" "$ports" <"$DIR/hold" >"$DIR/fanout-$label.out" &
    FANOUT_PID=$!
    exec 3>"$DIR/hold"  # the fan-out holds its streams until this closes
    for _ in $(seq 3000); do
      grep -q '^holding' "$DIR/fanout-$label.out" && break
      kill -0 "$FANOUT_PID" 2>/dev/null || { cat "$DIR/fanout-$label.out"; echo "sse-fanout failed" >&2; exit 1; }
      sleep 0.1
    done
    grep -v '^holding' "$DIR/fanout-$label.out"
    exec 3>&-
    wait "$FANOUT_PID"; FANOUT_PID=""
  }
  echo
  echo "== 2. event latency, $SUBSCRIBERS subscribers, $FLIPS flips each (load average $(load))"
  echo "-- SQLite, one node holds every stream and takes the PUTs"
  fanout sqlite sqlite "$SQLITE_TOKEN" "${NODE_PORT[sqlite]}"
  echo "-- PostgreSQL, three nodes ($(( SUBSCRIBERS / 3 ))+ streams each), the PUTs on node 1 (port ${NODE_PORT[pg1]})"
  fanout pg pg1 "$PG_TOKEN" "${NODE_PORT[pg1]},${NODE_PORT[pg2]},${NODE_PORT[pg3]}"
  sq_events=$(sed -n 's/^all .*: \(p50.*\)$/\1/p' "$DIR/fanout-sqlite.out")
  pg_other=$(sed -n "s/^other nodes' subscribers, \([0-9]*\) events: \(p50.*\)$/\2 (\1 events)/p" "$DIR/fanout-pg.out")
  pg_own=$(sed -n "s/^port [0-9]* (the PUT's node), [0-9]* events: \(p50.*\)$/\1/p" "$DIR/fanout-pg.out")
  p99_of() { echo "$1" | sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p'; }
  note "events, SQLite one node, $SUBSCRIBERS subscribers: $sq_events"
  note "events, PostgreSQL, subscribers on the two other nodes: $pg_other; p99 $(ratio "$(p99_of "$pg_other")" "$(p99_of "$sq_events")")x SQLite's (goal p99 < 1000 ms)"
  note "events, PostgreSQL, subscribers on the PUT's node: $pg_own"
}

# ---- 3. durable flips per second
part_flips() {
  refusals() {  # event node...: the nodes' log lines of that event so far
    local event=$1 name; shift
    for name in "$@"; do cat "$DIR/$name.err"; done | grep -c "event=$event " || true
  }
  counter() {  # metric node...: a counter of /metrics, all nodes together (0 where a build has none)
    local metric=$1 name total=0; shift
    for name in "$@"; do
      total=$((total + $(curl -sf "http://127.0.0.1:${NODE_PORT[$name]}/metrics" | awk -v m="$metric" '$1 == m {v = $2} END {print v + 0}')))
    done
    echo "$total"
  }
  pg_pids() {  # every process of the primary and of its standby
    local name postmaster
    for name in main main-standby; do
      postmaster=$(head -1 "$DIR/pg-$name/data/postmaster.pid"); echo "$postmaster" $(ps -o pid= --ppid "$postmaster")
    done
  }
  flips() {  # label node...: wrk on each node at once (PUT_CONNECTIONS spread), prints and records the figures
    local label=$1; shift
    local nodes=("$@") count=$# i=0 pids=() node_pids=() v0 v1 ok=0 bad=0 seconds=0 p99s="" refused0 refused1 exhausted0 exhausted1 c0 c1 r0 r1
    local node_cpu0 node_cpu1 pg_cpu0 pg_cpu1 pg_set="" node
    for node in "${nodes[@]}"; do node_pids+=("${NODE_PID[$node]}"); done
    [[ $label == pg* ]] && pg_set=$(pg_pids)
    v0=$(version_of "${nodes[0]}")
    refused0=$(refusals publish_refused "${nodes[@]}"); exhausted0=$(refusals publish_conflicts_exhausted "${nodes[@]}")
    c0=$(counter flagserver_group_commits_total "${nodes[@]}"); r0=$(counter flagserver_publish_retries_total "${nodes[@]}")
    node_cpu0=$(cpu_ticks "${node_pids[@]}"); pg_cpu0=$(cpu_ticks $pg_set)
    for node in "${nodes[@]}"; do
      local c=$(( PUT_CONNECTIONS / count + (i < PUT_CONNECTIONS % count ? 1 : 0) ))
      local script=$DIR/put-$node.lua
      wrk -t1 -c"$c" -d"${DURATION}s" --latency -s "$script" "http://127.0.0.1:${NODE_PORT[$node]}" >"$DIR/wrk-put-$label-$node.txt" &
      pids+=($!); i=$((i + 1))
    done
    wait "${pids[@]}"
    node_cpu1=$(cpu_ticks "${node_pids[@]}"); pg_cpu1=$(cpu_ticks $pg_set)
    c1=$(counter flagserver_group_commits_total "${nodes[@]}"); r1=$(counter flagserver_publish_retries_total "${nodes[@]}")
    for node in "${nodes[@]}"; do
      read -r _ p99 nbad total secs < <(summarize "$DIR/wrk-put-$label-$node.txt")
      ok=$((ok + total - nbad)); bad=$((bad + nbad)); seconds=$secs; p99s+="${p99s:+/}$p99"
    done
    sleep 1.5  # a cluster round, so the first node serves the others' last versions
    v1=$(version_of "${nodes[0]}")
    refused1=$(refusals publish_refused "${nodes[@]}"); exhausted1=$(refusals publish_conflicts_exhausted "${nodes[@]}")
    local rate; rate=$(python3 -c "print('%.0f' % ($ok / $seconds))")
    printf "%-11s %6s/s acknowledged, p99 %s ms; non-2xx %s (in the logs: %s refused by the store, %s gave up after retries);" \
      "$label" "$rate" "$p99s" "$bad" "$((refused1 - refused0))" "$((exhausted1 - exhausted0))"
    printf " versions %s -> %s; %s flips per commit; %s retried on a newer version;" "$v0" "$v1" "$(ratio "$ok" "$((c1 - c0))")" "$((r1 - r0))"
    printf " CPU per flip: flagserver %s us%s\n" "$(( (node_cpu1 - node_cpu0) * TICK_US / (ok > 0 ? ok : 1) ))" \
      "${pg_set:+, PostgreSQL $(( (pg_cpu1 - pg_cpu0) * TICK_US / (ok > 0 ? ok : 1) )) us}"
    echo "$label $rate $bad" >>"$DIR/flip-rounds.txt"
  }
  echo
  echo "== 3. durable flips by PUT, wrk -c$PUT_CONNECTIONS in all, ${DURATION}s, $FLIP_ROUNDS rounds (load average $(load))"
  stop_node pg2; stop_node pg3
  for round in $(seq "$FLIP_ROUNDS"); do
    echo "-- round $round"
    if [ $((round % 2)) = 1 ]; then flips sqlite sqlite; flips pg-1-node pg1; else flips pg-1-node pg1; flips sqlite sqlite; fi
    start_node pg2 "$PG_DB"; start_node pg3 "$PG_DB"
    flips pg-3-nodes pg1 pg2 pg3
    stop_node pg2; stop_node pg3
  done
  grep -h 'event=publish_refused' "$DIR"/pg*.err | sed 's/.* error="\([^"]*\)".*/\1/; s/[0-9][0-9]*/N/g' | sort | uniq -c | sed 's/^/  PostgreSQL refusals: /' | head -5 || true
  python3 - "$DIR/flip-rounds.txt" <<'PY' | tee -a "$DIR/summary.txt"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, rate, bad = line.split()
    rows.setdefault(label, []).append((float(rate), int(bad)))
sq = statistics.median(r for r, _ in rows["sqlite"])
for label in ("sqlite", "pg-1-node", "pg-3-nodes"):
    rates = [r for r, _ in rows[label]]
    print("flips %-10s median %6.0f/s (rounds %s; non-2xx %s): %.2fx SQLite" % (
        label, statistics.median(rates), " / ".join("%.0f" % r for r in rates),
        " / ".join(str(b) for _, b in rows[label]), statistics.median(rates) / sq))
PY
}

# ---- 4. failover: seconds without writes after a promotion
part_failover() {
  echo
  echo "== 4. failover: SIGKILL of the primary, pg_ctl promote of its synchronous standby, $FAILOVERS times (load average $(load))"
  pg_new fa
  pg_sql fa "CREATE DATABASE flags"
  pg_new fb fa
  pg_sync fa
  [ "$(pg_sql fa "SHOW synchronous_commit")" = on ] || { echo "synchronous_commit is not on" >&2; exit 1; }
  FAILOVER_DB=$(pg_uri fa fb)
  echo "flagserver --database '$FAILOVER_DB'"
  start_node failover "$FAILOVER_DB"
  FAILOVER_TOKEN=$("$BIN" --database "$FAILOVER_DB" token create --name bench --role writer | grep '^sfl_')
  make_counter failover "$FAILOVER_TOKEN"
  cat >"$DIR/flipper.py" <<'PY'
# One client flipping benchCounter as fast as the answers come; a line per answer: ok TIME VERSION HASH, or
# fail TIME STATUS CODE, or error TIME EXCEPTION (TIME: the wall clock when the answer was read).
import http.client, json, os, sys, time
port, token, out, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
log = open(out, "w", buffering=1)
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json", "X-Change-Message": "failover flip"}
connection, n = None, 0
while not os.path.exists(stop):
    n += 1
    try:
        if connection is None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("PUT", "/v1/environments/production/flags/benchCounter", body=str(n), headers=headers)
        response = connection.getresponse()
        body = response.read()
        at = time.time()
        if response.status == 200:
            answer = json.loads(body)
            log.write("ok %.6f %d %s\n" % (at, answer["version"], answer["contentHash"]))
        else:
            try:
                code = json.loads(body)["error"]["code"]
            except Exception:
                code = "-"
            log.write("fail %.6f %d %s\n" % (at, response.status, code))
            time.sleep(0.005)
    except Exception as error:
        log.write("error %.6f %s\n" % (time.time(), type(error).__name__))
        connection = None
        time.sleep(0.005)
PY
  python3 "$DIR/flipper.py" "${NODE_PORT[failover]}" "$FAILOVER_TOKEN" "$DIR/acks.txt" "$DIR/stop-flipper" &
  FLIPPER_PID=$!
  acks() { grep -c '^ok' "$DIR/acks.txt" 2>/dev/null || true; }
  primary=fa standby=fb
  for rep in $(seq "$FAILOVERS"); do
    # Steady writes first: at least a second of acknowledgements on the current primary with its synchronous standby.
    before=$(acks); sleep 1.5
    (( $(acks) > before + 10 )) || { echo "writes are not flowing before failover $rep: $(tail -3 "$DIR/acks.txt")" >&2; exit 1; }
    killed=$(date +%s.%N)
    pg_kill "$primary"
    as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg-$standby/data" -w -t 120 promote >/dev/null
    promoted=$(date +%s.%N)
    resumed=""
    for _ in $(seq 1200); do
      awk -v t="$promoted" '$1 == "ok" && $2 > t {found = 1} END {exit !found}' "$DIR/acks.txt" && { resumed=1; break; }
      sleep 0.05
    done
    [ -n "$resumed" ] || { echo "failover $rep: no write acknowledged within 60 s of the promotion: $(tail -3 "$DIR/acks.txt")" >&2; exit 1; }
    python3 - "$DIR/acks.txt" "$killed" "$promoted" "$rep" "$DIR/pg-$standby/log" <<'PY' | tee -a "$DIR/failover.txt"
# The outage: the longest stretch without an acknowledgement that ends after the kill, up to the first write after
# the promotion (a write in flight at the kill may still be answered just after it; a stall before the kill is not it).
import collections, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
killed, promoted, rep = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
oks = sorted(float(l[1]) for l in lines if l[0] == "ok")
resumed = min(t for t in oks if t > promoted)
window = [t for t in oks if killed - 1 <= t <= resumed]
last, first = max(((a, b) for a, b in zip(window, window[1:]) if b > killed), key=lambda pair: pair[1] - pair[0])
refused = collections.Counter(" ".join([l[0]] + l[2:]) for l in lines if l[0] != "ok" and last < float(l[1]) < first)
print("failover %s: %.3f s without an acknowledged write (from %+.3f s to %+.3f s of the kill; pg_ctl promote returned at %+.3f s); "
      "refused meanwhile: %s" % (rep, first - last, last - killed, first - killed, promoted - killed,
                                 ", ".join("%d %s" % (n, k) for k, n in refused.most_common()) or "none"))
# Whose time it was: the promoted server's log says when it got the request and when it took writes.
import datetime, re
def stamp(line):
    m = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) UTC", line)
    return datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp() if m else None
request = ready = None
waited = False
for line in open(sys.argv[5], errors="replace"):
    t = stamp(line)
    if t is None or t < killed - 1:
        continue
    if "received promote request" in line and request is None:
        request = t
    elif request is not None and ready is None and "waiting for WAL to become available" in line:
        waited = True
    elif request is not None and "database system is ready to accept connections" in line and ready is None:
        ready = t
if request is not None and ready is not None:
    print("  PostgreSQL: promote request at %+.3f s, writable at %+.3f s%s; flagserver's first write %.3f s after that"
          % (request - killed, ready - killed,
             " (after the request it logged \"waiting for WAL to become available\": slept wal_retrieve_retry_interval)"
             if waited and ready - request > 1 else "",
             first - ready))
PY
    # The killed one comes back as the new primary's standby (same port), synchronous before the next round.
    pg_new "$primary" "$standby"
    pg_sync "$standby"
    tmp=$primary; primary=$standby; standby=$tmp
  done
  touch "$DIR/stop-flipper"; wait "$FLIPPER_PID"; FLIPPER_PID=""
  pg_sql "$primary" "SELECT v.number, v.content_hash FROM versions v JOIN environments e ON e.id = v.environment_id WHERE e.name = 'production' ORDER BY v.number" flags >"$DIR/stored.txt"
  python3 - "$DIR/acks.txt" "$DIR/stored.txt" "$DIR/failover.txt" <<'PY' | tee -a "$DIR/summary.txt"
import re, statistics, sys
stored = dict(line.strip().split("|") for line in open(sys.argv[2]) if line.strip())
acked = [l.split() for l in open(sys.argv[1]) if l.startswith("ok")]
lost = [a for a in acked if stored.get(a[2]) != a[3]]
numbers = sorted(int(n) for n in stored)
gaps = [float(m.group(1)) for m in re.finditer(r"([\d.]+) s without", open(sys.argv[3]).read())]
print("failover: seconds without an acknowledged write over %d promotions: min %.3f, median %.3f, max %.3f" % (
    len(gaps), min(gaps), statistics.median(gaps), max(gaps)))
ours = [float(m.group(1)) for m in re.finditer(r"first write ([\d.]+) s after that", open(sys.argv[3]).read())]
slept = open(sys.argv[3]).read().count("slept wal_retrieve_retry_interval")
if ours:
    print("failover: of which flagserver's part (PostgreSQL writable -> first acknowledged write): min %.3f, median %.3f, max %.3f s; "
          "%d of %d promotions slept wal_retrieve_retry_interval after the promote request" % (
              min(ours), statistics.median(ours), max(ours), slept, len(gaps)))
print("failover: %d acknowledged versions, %d missing or changed on the last primary; history 1..%d %s" % (
    len(acked), len(lost), numbers[-1], "without a gap" if numbers == list(range(1, numbers[-1] + 1)) else "WITH GAPS"))
PY
  stop_node failover
}

# ---- 5. cold start with COLD_VERSIONS versions
part_cold() {
  echo
  echo "== 5. cold start to \"listening\" with $COLD_VERSIONS versions of production stored (load average $(load))"
  fill() {  # node: flips until production has COLD_VERSIONS versions
    local v
    while :; do
      v=$(version_of "$1")
      [ "$v" -ge "$COLD_VERSIONS" ] && break
      wrk -t2 -c"$PUT_CONNECTIONS" -d5s -s "$DIR/put-$1.lua" "http://127.0.0.1:${NODE_PORT[$1]}" >/dev/null
    done
    echo "$1: production has $v versions"
  }
  fill sqlite
  fill pg1
  stop_node sqlite; stop_node pg1
  echo "PostgreSQL database size: $(pg_sql main "SELECT pg_size_pretty(pg_database_size('flags'))"); SQLite file: $(du -h "$SQLITE_DB" | cut -f1)"
  cold_start() {  # database -> milliseconds to the "listening" line
    python3 - "$BIN" "$1" <<'PY'
import subprocess, sys, time
binary, database = sys.argv[1], sys.argv[2]
start = time.monotonic()
p = subprocess.Popen([binary, "--port", "0", "--database", database, "--flags-dir", "flags", "--log-level", "warning",
                      "--console-dir", "off"], stdout=subprocess.PIPE, text=True)
line = p.stdout.readline()
ready = time.monotonic() - start
p.terminate(); p.wait()
assert line.startswith("listening on"), line
print("%.1f" % (ready * 1000))
PY
  }
  for run in $(seq "$COLD_STARTS"); do
    pgms=$(cold_start "$PG_DB"); sqms=$(cold_start "$SQLITE_DB")
    echo "start $run: PostgreSQL $pgms ms, SQLite $sqms ms"
    echo "$pgms $sqms" >>"$DIR/cold.txt"
  done
  python3 - "$DIR/cold.txt" "$COLD_VERSIONS" <<'PY' | tee -a "$DIR/summary.txt"
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
pg, sq = [r[0] for r in rows], [r[1] for r in rows]
print("cold start, %s versions: PostgreSQL median %.1f ms (%.1f-%.1f), SQLite median %.1f ms (%.1f-%.1f): %.2fx SQLite"
      % (sys.argv[2], statistics.median(pg), min(pg), max(pg), statistics.median(sq), min(sq), max(sq), statistics.median(pg) / statistics.median(sq)))
PY

}

if part get; then part_get; fi
if part events; then part_events; fi
if part flips; then part_flips; fi
if part failover; then part_failover; fi
if part cold; then part_cold; fi
note "load average after: $(load)"
echo
echo "== summary ($(nproc) cores shared with whatever else runs: wall-clock figures move with the load printed)"
cat "$DIR/summary.txt"
