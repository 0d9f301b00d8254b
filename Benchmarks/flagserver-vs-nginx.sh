#!/usr/bin/env bash
# flagserver against nginx, run by hand (never in CI), everything measured in ONE run on this machine:
#   1. GET of the production document: flagserver vs nginx serving the same bytes as a static file
#      (200, and 304 with If-None-Match), loaded by wrk; req/s, p99 and the ratio flagserver/nginx.
#   2. Durable flips per second by PUT (each a new version, fsynced before the 200): alone, as fast as
#      they go; then while wrk loads GET, once as fast as they go and once paced at FLIP_RATE per second
#      (the target: over 1,000 flips/s with read p99 under 5 ms); read p99 meanwhile. wrk's GET load
#      saturates the server, so its p99 is mostly queueing (nginx's p99 in step 1 is as high); the last run
#      also paces the reads at READ_RATE per second, which measures how long a read takes while flips
#      land rather than how long the queue is.
#   3. Cold start to "listening" with >= 10,000 versions stored.
# Needs: wrk, nginx (nginx-light), curl, python3. Tunables: DURATION (s), GET_ROUNDS, CONNECTIONS, PUT_CONNECTIONS,
# PACED_PUT_CONNECTIONS, FLIP_RATE, READ_RATE; GET_ONLY=1 stops after step 1. BASE_BIN=/path/to/another/flagserver
# also loads that build in every GET round (rows "base 200"/"base 304", its own ratio to nginx in the same minutes):
# a change to the request path against the build before it, both against the same nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
PUT_CONNECTIONS=${PUT_CONNECTIONS:-16}
# Paced flips: each connection waits between its requests, so the rate is connections / (wait + latency).
# With 32 connections the fsync latency under load (p99 about 20 ms) no longer keeps the rate near 1,000/s.
PACED_PUT_CONNECTIONS=${PACED_PUT_CONNECTIONS:-32}
FLIP_RATE=${FLIP_RATE:-1600}
READ_RATE=${READ_RATE:-20000}
GET_ROUNDS=${GET_ROUNDS:-3}
for tool in wrk nginx curl python3; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 2; }; done

swift build -c release --product flagserver >/dev/null
BIN=$PWD/.build/release/flagserver
DIR=$(mktemp -d "${TMPDIR:-/tmp}/flagserver-bench.XXXXXX")
SERVER_PID=""
BASE_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  [ -n "$BASE_PID" ] && kill "$BASE_PID" 2>/dev/null && wait "$BASE_PID" 2>/dev/null || true
  [ -f "$DIR/nginx.pid" ] && kill "$(cat "$DIR/nginx.pid")" 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

start_server() {  # starts flagserver on a free port, waits for its ready line, sets PORT and SERVER_PID
  : > "$DIR/server.out"
  "$BIN" --port 0 --database "$DIR/flags.sqlite" --flags-dir flags --log-level warning >"$DIR/server.out" 2>>"$DIR/server.err" &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    PORT=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$DIR/server.out")
    [ -n "$PORT" ] && return 0
    sleep 0.05
  done
  echo "flagserver did not start: $(cat "$DIR/server.err")" >&2; exit 1
}

stop_server() { kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""; }

# wrk output -> "req/s p99_ms non2xx"
summarize() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
errors = re.search(r"Socket errors:.*", text)
print("%.0f %.3f %s %s" % (rps, p99, bad.group(1) if bad else "0", "errors" if errors else "-"))
PY
}

# CPU time (clock ticks) used so far by the given PIDs: unlike requests/s it does not depend on how the two
# cores happen to be shared with wrk in that round.
cpu_ticks() { local t=0 pid; for pid in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
nginx_pids() { local master; master="$(cat "$DIR/nginx.pid")"; echo "$master" $(cat "/proc/$master/task/$master/children" 2>/dev/null); }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

run_wrk() {  # name "pids" url [extra header] -> "req/s p99_ms non2xx errors cpu_us_per_request"
  local out="$DIR/wrk-$1.txt"; shift
  local pids=$1; shift
  local url=$1; shift
  local before after
  before=$(cpu_ticks $pids)
  if [ $# -gt 0 ]; then wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "$1" "$url" >"$out"
  else wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$url" >"$out"; fi
  after=$(cpu_ticks $pids)
  local total
  total=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$out")
  echo "$(summarize "$out") $(awk -v t=$((after - before)) -v n="$total" -v u="$TICK_US" 'BEGIN{printf "%.2f", (n>0)? t*u/n : 0}')"
}

start_server
DOC_URL="http://127.0.0.1:$PORT/v1/environments/production/document"
if [ -n "${BASE_BIN:-}" ]; then
  mkdir -p "$DIR/base"
  : >"$DIR/base/server.out"
  "$BASE_BIN" --port 0 --database "$DIR/base/flags.sqlite" --flags-dir flags --log-level warning >"$DIR/base/server.out" 2>>"$DIR/base/server.err" &
  BASE_PID=$!
  for _ in $(seq 1 600); do
    BASE_PORT=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$DIR/base/server.out")
    [ -n "$BASE_PORT" ] && break
    sleep 0.05
  done
  [ -n "${BASE_PORT:-}" ] || { echo "BASE_BIN did not start: $(cat "$DIR/base/server.err")" >&2; exit 1; }
  BASE_URL="http://127.0.0.1:$BASE_PORT/v1/environments/production/document"
  BASE_ETAG=$(curl -sfI "$BASE_URL" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r')
fi
mkdir -p "$DIR/www"
chmod 755 "$DIR" "$DIR/www"   # nginx workers run as an unprivileged user
curl -sf "$DOC_URL" -o "$DIR/www/production.json"
chmod 644 "$DIR/www/production.json"
ETAG=$(curl -sfI "$DOC_URL" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r')

NGINX_PORT=$(free_port)
Benchmarks/nginx-static-conf.sh "$DIR" "$NGINX_PORT" >"$DIR/nginx.conf"
nginx -c "$DIR/nginx.conf" -p "$DIR"
NGINX_URL="http://127.0.0.1:$NGINX_PORT/production.json"
for _ in $(seq 1 100); do curl -sf "$NGINX_URL" -o /dev/null && break; sleep 0.05; done
cmp -s <(curl -sf "$NGINX_URL") "$DIR/www/production.json" || { echo "nginx serves other bytes" >&2; exit 1; }
NGINX_ETAG=$(curl -sfI "$NGINX_URL" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r')
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $ETAG" "$DOC_URL")" = 304 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $NGINX_ETAG" "$NGINX_URL")" = 304 ]

echo "== GET of the production document ($(wc -c <"$DIR/www/production.json") bytes), wrk -t2 -c$CONNECTIONS -d${DURATION}s, $(nproc) cores, $GET_ROUNDS rounds"
# Each round measures both servers within seconds of each other, who goes first alternating; the summary
# takes the median of each column over the rounds (one round is at the mercy of the scheduler).
printf "%-10s %12s %10s %12s %10s %8s %9s %9s %8s\n" "" "flagserver" "p99 ms" "nginx" "p99 ms" "ratio" "fs cpu" "ngx cpu" "cpu x"
fs200bad=0
for round in $(seq "$GET_ROUNDS"); do
  for kind in 200 304; do
    if [ "$kind" = 200 ]; then ours=("$DOC_URL"); theirs=("$NGINX_URL"); base=("${BASE_URL:-}")
    else ours=("$DOC_URL" "If-None-Match: $ETAG"); theirs=("$NGINX_URL" "If-None-Match: $NGINX_ETAG"); base=("${BASE_URL:-}" "If-None-Match: ${BASE_ETAG:-}"); fi
    # Who goes first alternates (with BASE_BIN, the base build goes first in even rounds, last in odd ones).
    if [ $((round % 2)) = 1 ]; then order="fs ng base"; else order="base ng fs"; fi
    for who in $order; do
      case $who in
        fs) read -r fs fsp99 bad _ fscpu < <(run_wrk "fs$kind" "$SERVER_PID" "${ours[@]}") ;;
        ng) read -r ng ngp99 _ _ ngcpu < <(run_wrk "ng$kind" "$(nginx_pids)" "${theirs[@]}") ;;
        base) [ -n "$BASE_PID" ] && read -r bs bsp99 _ _ bscpu < <(run_wrk "base$kind" "$BASE_PID" "${base[@]}") ;;
      esac
    done
    fs200bad=$((fs200bad + bad))
    echo "$kind $fs $fsp99 $ng $ngp99 $fscpu $ngcpu" >>"$DIR/get-rounds.txt"
    printf "%-10s %12s %10s %12s %10s %7.2fx %7sus %7sus %7.2fx\n" "$kind r$round" "$fs" "$fsp99" "$ng" "$ngp99" \
      "$(python3 -c "print($fs/$ng)")" "$fscpu" "$ngcpu" "$(python3 -c "print($fscpu/$ngcpu if $ngcpu else 0)")"
    if [ -n "$BASE_PID" ]; then
      echo "base$kind $bs $bsp99 $ng $ngp99 $bscpu $ngcpu" >>"$DIR/get-rounds.txt"
      printf "%-10s %12s %10s %12s %10s %7.2fx %7sus %7sus %7.2fx\n" "base$kind r$round" "$bs" "$bsp99" "$ng" "$ngp99" \
        "$(python3 -c "print($bs/$ng)")" "$bscpu" "$ngcpu" "$(python3 -c "print($bscpu/$ngcpu if $ngcpu else 0)")"
    fi
  done
done
python3 - "$DIR/get-rounds.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kind, *values = line.split()
    rows.setdefault(kind, []).append([float(v) for v in values])
for kind, runs in rows.items():
    fs, fsp, ng, ngp, fsc, ngc = (statistics.median(r[i] for r in runs) for i in range(6))
    print("%-10s %12.0f %10.3f %12.0f %10.3f %7.2fx %7.2fus %7.2fus %7.2fx   (medians of %d; p99 x %.2f)"
          % (kind + " median", fs, fsp, ng, ngp, fs / ng, fsc, ngc, fsc / ngc if ngc else 0, len(runs), fsp / ngp))
print("(ratio > 1: flagserver serves more; cpu = server CPU microseconds per request, all its processes; cpu x < 1: flagserver uses less)")
PY
[ "$fs200bad" = 0 ] || echo "warning: $fs200bad non-2xx answers from flagserver"
kill "$(cat "$DIR/nginx.pid")"; rm -f "$DIR/nginx.pid"
[ -n "${GET_ONLY:-}" ] && exit 0   # GET_ONLY=1: step 1 only

TOKEN=$("$BIN" --database "$DIR/flags.sqlite" token create --name bench --role writer | grep '^sfl_')
# A bare value only flips an existing flag: create the counter with its full definition first.
curl -sf -o /dev/null -X PUT "http://127.0.0.1:$PORT/v1/environments/production/flags/benchCounter" \
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'X-Change-Message: bench counter' \
  -d '{"type": "integer", "default": 0}'
Benchmarks/flip-script.sh "$TOKEN" >"$DIR/put.lua"
echo "== Durable flips by PUT alone (wrk -t2 -c$PUT_CONNECTIONS; each PUT sets a new value, so each is a new fsynced version)"
wrk -t2 -c"$PUT_CONNECTIONS" -d"${DURATION}s" --latency -s "$DIR/put.lua" "http://127.0.0.1:$PORT" >"$DIR/wrk-put-alone.txt"
read -r alone alonep99 alonebad _ < <(summarize "$DIR/wrk-put-alone.txt")
echo "flips: $alone/s acknowledged (p99 $alonep99 ms, non-2xx $alonebad)"

# The same PUTs, each connection waiting between its requests so that all of them together ask for about
# FLIP_RATE flips per second (wrk calls delay() before each request; the measured rate is printed).
sed "s|^function request()|function delay() return $(( PACED_PUT_CONNECTIONS * 1000 / FLIP_RATE )) end\nfunction request()|" \
  "$DIR/put.lua" >"$DIR/put-paced.lua"

# GETs paced the same way: each connection waits between requests.
printf 'function delay() return %d end\n' $(( CONNECTIONS * 1000 / READ_RATE )) >"$DIR/get-paced.lua"

flips_under_reads() {  # label put-script put-connections [get-script]
  echo "== Durable flips by PUT while wrk loads GET, $1 (wrk -t1 -c$CONNECTIONS GET, wrk -t2 -c$3 PUT)"
  local v0 v1 gets getp99 puts putp99 putbad
  local get_script=()
  [ -n "${4:-}" ] && get_script=(-s "$4")
  v0=$(curl -sf "$DOC_URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
  wrk -t1 -c"$CONNECTIONS" -d"$((DURATION + 2))s" --latency "${get_script[@]}" "$DOC_URL" >"$DIR/wrk-get-under-flips.txt" &
  local gets_pid=$!
  sleep 1
  wrk -t2 -c"$3" -d"${DURATION}s" --latency -s "$2" "http://127.0.0.1:$PORT" >"$DIR/wrk-put.txt"
  wait "$gets_pid"
  v1=$(curl -sf "$DOC_URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
  read -r puts putp99 putbad _ < <(summarize "$DIR/wrk-put.txt")
  read -r gets getp99 _ _ < <(summarize "$DIR/wrk-get-under-flips.txt")
  echo "flips: $puts/s acknowledged (p99 $putp99 ms, non-2xx $putbad); versions $v0 -> $v1 ($(( (v1 - v0) / DURATION ))/s by version count)"
  echo "reads meanwhile: $gets req/s, p99 $getp99 ms"
}
flips_under_reads "as fast as they go" "$DIR/put.lua" "$PUT_CONNECTIONS"
flips_under_reads "paced at about $FLIP_RATE/s" "$DIR/put-paced.lua" "$PACED_PUT_CONNECTIONS"
flips_under_reads "paced at about $FLIP_RATE/s, reads paced at about $READ_RATE/s" "$DIR/put-paced.lua" "$PACED_PUT_CONNECTIONS" "$DIR/get-paced.lua"
curl -sf "http://127.0.0.1:$PORT/metrics" | grep -E '^flagserver_(group_commits|publishes)_total' | sed 's/^/  /'

echo "== Cold start with >= 10,000 versions stored"
while :; do
  v=$(curl -sf "$DOC_URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
  [ "$v" -ge 10000 ] && break
  wrk -t2 -c"$PUT_CONNECTIONS" -d5s -s "$DIR/put.lua" "http://127.0.0.1:$PORT" >/dev/null
done
echo "production has $v versions"
stop_server
for run in 1 2 3 4 5; do
  python3 - "$BIN" "$DIR" <<'PY'
import subprocess, sys, time
binary, directory = sys.argv[1], sys.argv[2]
start = time.monotonic()
p = subprocess.Popen([binary, "--port", "0", "--database", directory + "/flags.sqlite", "--flags-dir", "flags",
                      "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
line = p.stdout.readline()
ready = time.monotonic() - start
p.terminate(); p.wait()
assert line.startswith("listening on"), line
print("cold start to ready: %.1f ms" % (ready * 1000))
PY
done
