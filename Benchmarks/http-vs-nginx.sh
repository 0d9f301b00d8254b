#!/usr/bin/env bash
# HTTPServer against nginx on the same machine, same bytes, same wrk runs (run by hand, not in CI).
#
#   Benchmarks/http-vs-nginx.sh            # 10 s per run
#   DURATION=5s IDLE=10000 ROUNDS=3 Benchmarks/http-vs-nginx.sh
#   LISTENER=reuseport Benchmarks/http-vs-nginx.sh   # both servers with a SO_REUSEPORT listener per loop/worker
#   PIN=1 Benchmarks/http-vs-nginx.sh                # wrk on CPU 1, each server on CPU 0 (one loop, one worker)
#
# Starts the release build of `http-bench-server` (a fixed 750-byte JSON document with an ETag) and
# nginx (Debian nginx-light, its own temporary prefix and config, worker_processes auto, access_log off)
# serving the same bytes as a static file. Both listen the same way: by default one listening socket shared
# by all loops/workers (ours: EPOLLEXCLUSIVE; nginx's default `listen`), with LISTENER=reuseport one
# SO_REUSEPORT socket per loop/worker; and both with TCP_DEFER_ACCEPT (our default; nginx `deferred`).
# Then it then loads each with wrk: 64 keep-alive connections,
# 256 keep-alive connections, and 64 connections with `Connection: close` (a new connection per request).
# Prints requests/s and p99 for both and the ratio, then the resident memory of each server holding
# IDLE idle keep-alive connections. It also prints the servers' CPU time per request (all their processes),
# which compares them even when other work on the machine makes requests/s noisy, and the load average.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine

DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
IDLE="${IDLE:-10000}"
LISTENER="${LISTENER:-shared}"
PIN="${PIN:-}"
NGINX_REUSEPORT=""
[ "$LISTENER" = reuseport ] && NGINX_REUSEPORT=" reuseport"
# PIN: the load generator and the servers on separate cores, so the scheduler does not decide the rounds.
WRK_PREFIX=()
SERVER_PREFIX=()
LOOPS=""
WORKERS=auto
if [ -n "$PIN" ]; then
    WRK_PREFIX=(taskset -c 1)
    SERVER_PREFIX=(taskset -c 0)
    LOOPS=1
    WORKERS=1
fi
OURS_PORT="${OURS_PORT:-18080}"
NGINX_PORT="${NGINX_PORT:-18090}"

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 2; }
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$NGINX" ] || { echo "nginx is not installed" >&2; exit 2; }

TMP="$(mktemp -d)"
chmod 755 "$TMP"  # nginx workers run as nobody
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$TMP/nginx.pid" ] && kill "$(cat "$TMP/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
    [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

echo "== build (release)"
swift build -c release --product http-bench-server -Xswiftc -warnings-as-errors >/dev/null
BIN="$(swift build -c release --show-bin-path)/http-bench-server"

mkdir -p "$TMP/html" "$TMP/logs"
LISTENER="$LISTENER" "${SERVER_PREFIX[@]}" "$BIN" "$OURS_PORT" "$LOOPS" "$TMP/html/document.json" >"$TMP/ours.log" 2>&1 &
PIDS+=($!)
OURS_PID=$!

cat >"$TMP/nginx.conf" <<CONF
worker_processes $WORKERS;
worker_rlimit_nofile 65536;
pid $TMP/nginx.pid;
error_log $TMP/logs/error.log warn;
daemon off;
events { worker_connections 32768; multi_accept on; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    open_file_cache max=16 inactive=60s;
    open_file_cache_valid 60s;
    client_body_temp_path $TMP/body;
    proxy_temp_path $TMP/proxy;
    fastcgi_temp_path $TMP/fastcgi;
    uwsgi_temp_path $TMP/uwsgi;
    scgi_temp_path $TMP/scgi;
    default_type application/json;
    server {
        listen 127.0.0.1:$NGINX_PORT$NGINX_REUSEPORT deferred backlog=4096;
        root $TMP/html;
        location / { try_files /document.json =404; add_header Cache-Control no-cache; }
    }
}
CONF
"${SERVER_PREFIX[@]}" "$NGINX" -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/logs/error.log" &
PIDS+=($!)

for _ in $(seq 100); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$OURS_PORT/" 2>/dev/null && curl -fsS -o /dev/null "http://127.0.0.1:$NGINX_PORT/" 2>/dev/null; then break; fi
    sleep 0.1
done
cmp <(curl -fsS "http://127.0.0.1:$OURS_PORT/") <(curl -fsS "http://127.0.0.1:$NGINX_PORT/") || { echo "bodies differ" >&2; exit 2; }
echo "== same $(curl -fsS "http://127.0.0.1:$OURS_PORT/" | wc -c)-byte body from both; headers:"
curl -fsS -o /dev/null -D - "http://127.0.0.1:$OURS_PORT/" | sed 's/^/   ours:  /'
curl -fsS -o /dev/null -D - "http://127.0.0.1:$NGINX_PORT/" | sed 's/^/   nginx: /'

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs; listener: $LISTENER${PIN:+; pinned: wrk on CPU 1, servers on CPU 0 with 1 loop / 1 worker}"

# CPU time (clock ticks) used so far by the given PIDs: the comparison that does not depend on how busy
# the shared machine is.
cpu_ticks() { local t=0 pid; for pid in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
nginx_pids() { local master; master="$(cat "$TMP/nginx.pid")"; echo "$master" $(cat "/proc/$master/task/$master/children" 2>/dev/null); }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

# wrk output -> "requests_per_second p99_ms cpu_us_per_request errors"
measure() {
    local url="$1" conns="$2" pids="$3"; shift 3
    local out before after
    before="$(cpu_ticks $pids)"
    out="$("${WRK_PREFIX[@]}" wrk -t"$THREADS" -c"$conns" -d"$DURATION" --timeout 5s --latency "$@" "$url")"
    after="$(cpu_ticks $pids)"
    local rps p99 errors total cpu
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
    total="$(awk '/requests in/ {print $1}' <<<"$out")"
    p99="$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; print v}' <<<"$out")"
    cpu="$(awk -v t=$((after - before)) -v n="$total" -v u="$TICK_US" 'BEGIN{print (n>0)? t*u/n : 0}')"
    errors="$(awk '/Socket errors|Non-2xx/ {printf "%s ", $0}' <<<"$out" | tr ' ' '_')"
    echo "$rps $p99 $cpu ${errors:-none}"
}

printf '\n%-24s %11s %9s %8s %11s %9s %8s %8s %8s %8s\n' mode "ours req/s" "ours p99" "ours cpu" "nginx req/s" "nginx p99" "ngx cpu" "req x" "p99 x" "cpu x"
run_mode() {
    local name="$1" conns="$2"; shift 2
    # Warm both up briefly, then measure one after the other.
    wrk -t1 -c8 -d1s "$@" "http://127.0.0.1:$OURS_PORT/" >/dev/null
    wrk -t1 -c8 -d1s "$@" "http://127.0.0.1:$NGINX_PORT/" >/dev/null
    # Who goes first alternates by round, so neither always runs after the other's leftovers (TIME_WAIT).
    if [ $((round % 2)) = 1 ]; then
        read -r o_rps o_p99 o_cpu o_err <<<"$(measure "http://127.0.0.1:$OURS_PORT/" "$conns" "$OURS_PID" "$@")"
        read -r n_rps n_p99 n_cpu n_err <<<"$(measure "http://127.0.0.1:$NGINX_PORT/" "$conns" "$(nginx_pids)" "$@")"
    else
        read -r n_rps n_p99 n_cpu n_err <<<"$(measure "http://127.0.0.1:$NGINX_PORT/" "$conns" "$(nginx_pids)" "$@")"
        read -r o_rps o_p99 o_cpu o_err <<<"$(measure "http://127.0.0.1:$OURS_PORT/" "$conns" "$OURS_PID" "$@")"
    fi
    echo "$name|$o_rps|$o_p99|$o_cpu|$n_rps|$n_p99|$n_cpu" >>"$TMP/rounds.txt"
    printf '%-24s %11.0f %7.2fms %6.1fus %11.0f %7.2fms %6.1fus %7.2fx %7.2fx %7.2fx\n' "$name" \
        "$o_rps" "$o_p99" "$o_cpu" "$n_rps" "$n_p99" "$n_cpu" \
        "$(awk -v a="$o_rps" -v b="$n_rps" 'BEGIN{print a/b}')" "$(awk -v a="$o_p99" -v b="$n_p99" 'BEGIN{print (b>0)?a/b:0}')" \
        "$(awk -v a="$o_cpu" -v b="$n_cpu" 'BEGIN{print (b>0)?a/b:0}')"
    [ "$o_err" = none ] || echo "   ours errors: ${o_err//_/ }"
    [ "$n_err" = none ] || echo "   nginx errors: ${n_err//_/ }"
}
for round in $(seq "${ROUNDS:-1}"); do
    [ "${ROUNDS:-1}" = 1 ] || echo "-- round $round"
    run_mode "keep-alive, 64 conns" 64
    run_mode "keep-alive, 256 conns" 256
    run_mode "Connection: close, 64" 64 -H "Connection: close"
done
echo "(req x > 1: ours serves more; p99 x < 1: ours has the lower p99; cpu = server CPU microseconds per request, all processes; cpu x < 1: ours uses less)"
if [ "${ROUNDS:-1}" -gt 1 ]; then
    # One round's p99 is decided by a few scheduler stalls of either server; the median over the rounds
    # is the steadier figure (as in ofrep-vs-nginx.sh).
    echo
    echo "== medians over ${ROUNDS} rounds"
    python3 - "$TMP/rounds.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, *values = line.rstrip("\n").split("|")
    rows.setdefault(name, []).append([float(v) for v in values])
print("%-24s %11s %9s %11s %9s %8s %8s %8s" % ("mode", "ours req/s", "ours p99", "nginx req/s", "nginx p99", "req x", "p99 x", "cpu x"))
for name, runs in rows.items():
    med = [statistics.median(r[i] for r in runs) for i in range(6)]
    print("%-24s %11.0f %7.2fms %11.0f %7.2fms %7.2fx %7.2fx %7.2fx" % (
        name, med[0], med[1], med[3], med[4], med[0] / med[3], med[1] / med[4], med[2] / med[5]))
PY
fi

rss_kb() { awk '/^VmRSS:/ {s+=$2} END {print s+0}' "$@"; }
nginx_status_files() {
    local master; master="$(cat "$TMP/nginx.pid")"
    echo "/proc/$master/status"
    for c in $(cat "/proc/$master/task/$master/children" 2>/dev/null); do echo "/proc/$c/status"; done
}

# Opens N keep-alive connections, sends one request on each, reads the response, keeps them open,
# prints "ready", and holds them until stdin closes.
cat >"$TMP/idle.py" <<'PY'
import selectors, socket, sys, resource
port, n = int(sys.argv[1]), int(sys.argv[2])
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))
sel = selectors.DefaultSelector()
socks, done, opened = [], 0, 0
req = b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
pending = {}
while opened < n or done < n:
    while opened < n and len(pending) < 500:
        s = socket.socket(); s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        sel.register(s, selectors.EVENT_WRITE); pending[s] = b""; opened += 1
    for key, ev in sel.select(timeout=5):
        s = key.fileobj
        if ev & selectors.EVENT_WRITE:
            s.send(req); sel.modify(s, selectors.EVENT_READ)
        else:
            data = s.recv(65536)
            if not data: raise SystemExit("server closed a connection")
            pending[s] += data
            if b"\r\n\r\n" in pending[s] and len(pending[s]) >= pending[s].index(b"\r\n\r\n") + 4 + 750:
                sel.unregister(s); del pending[s]; socks.append(s); done += 1
print("ready", len(socks), flush=True)
sys.stdin.read()
PY

idle_rss() {
    local port="$1"; shift
    local before after
    before="$(rss_kb "$@")"
    coproc IDLER { python3 "$TMP/idle.py" "$port" "$IDLE" 2>&1; }
    local line; read -r line <&"${IDLER[0]}"
    after="$(rss_kb "$@")"
    eval "exec ${IDLER[1]}>&-"
    wait "$IDLER_PID" 2>/dev/null || true
    echo "$before $after $line"
}
echo
echo "== resident memory with $IDLE idle keep-alive connections (all processes of each server)"
read -r ob oa oline <<<"$(idle_rss "$OURS_PORT" "/proc/$OURS_PID/status")"
printf 'ours:  %6.1f MB before, %6.1f MB with connections open (%s)\n' "$(awk -v k="$ob" 'BEGIN{print k/1024}')" "$(awk -v k="$oa" 'BEGIN{print k/1024}')" "$oline"
mapfile -t NGINX_FILES < <(nginx_status_files)
read -r nb na nline <<<"$(idle_rss "$NGINX_PORT" "${NGINX_FILES[@]}")"
printf 'nginx: %6.1f MB before, %6.1f MB with connections open (%s)\n' "$(awk -v k="$nb" 'BEGIN{print k/1024}')" "$(awk -v k="$na" 'BEGIN{print k/1024}')" "$nline"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
