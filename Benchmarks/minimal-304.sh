#!/usr/bin/env bash
# The 304's ceiling on this machine (issue #27), run by hand (never in CI): flagserver's document GET with a
# matching If-None-Match against nginx (the peer of flagserver-vs-nginx.sh) AND against two minimal C servers that
# only read a request and send flagserver's 304 bytes (Benchmarks/minimal-304/: epoll, and io_uring), all loaded by
# the same wrk in alternating rounds. If a server that does no HTTP work at all stays below 1.5x nginx in a round,
# no change to flagserver's request path can reach 1.5x in that round.
# Tunables: ROUNDS (default 5), DURATION (s, default 5), CONNECTIONS (64). Needs: wrk, nginx, gcc, liburing-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench
ROUNDS=${ROUNDS:-5}; DURATION=${DURATION:-5}; CONNECTIONS=${CONNECTIONS:-64}
swift build -c release --product flagserver >/dev/null
DIR=$(mktemp -d "${TMPDIR:-/tmp}/minimal-304.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$DIR/nginx.pid" ] && kill "$(cat "$DIR/nginx.pid")" 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
gcc -O2 -Wall -Werror -o "$DIR/epoll304" Benchmarks/minimal-304/epoll304.c -lpthread
gcc -O2 -Wall -Werror -o "$DIR/uring304" Benchmarks/minimal-304/uring304.c -luring -lpthread

.build/release/flagserver --port 0 --database "$DIR/flags.sqlite" --flags-dir flags --log-level warning >"$DIR/fs.out" 2>"$DIR/fs.err" &
FS=$!; PIDS+=("$FS")
for _ in $(seq 200); do FP=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$DIR/fs.out"); [ -n "$FP" ] && break; sleep 0.05; done
[ -n "${FP:-}" ] || { echo "flagserver did not start: $(cat "$DIR/fs.err")" >&2; exit 1; }
DOC="http://127.0.0.1:$FP/v1/environments/production/document"
ETAG=$(curl -sfI "$DOC" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r')
mkdir -p "$DIR/www"; curl -sf "$DOC" -o "$DIR/www/production.json"; chmod 755 "$DIR" "$DIR/www"; chmod 644 "$DIR/www/production.json"
NGINX_PORT=$(free_port)
Benchmarks/nginx-static-conf.sh "$DIR" "$NGINX_PORT" >"$DIR/nginx.conf"
nginx -c "$DIR/nginx.conf" -p "$DIR"
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$NGINX_PORT/production.json" -o /dev/null && break; sleep 0.05; done
NETAG=$(curl -sfI "http://127.0.0.1:$NGINX_PORT/production.json" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r')
EP_PORT=$(free_port); "$DIR/epoll304" "$EP_PORT" 2 & EP=$!; PIDS+=("$EP")
UR_PORT=$(free_port); "$DIR/uring304" "$UR_PORT" 2 & UR=$!; PIDS+=("$UR")
sleep 0.3
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $ETAG" "$DOC")" = 304 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$UR_PORT/")" = 304 ]

ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
run() {  # name url tag pids... -> "req/s cpu_us_per_request"
  local url=$2 tag=$3 before after out n rps; shift 3
  before=$(ticks "$@")
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -H "If-None-Match: $tag" "$url")
  after=$(ticks "$@")
  n=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' <<<"$out"); rps=$(sed -n 's/^Requests\/sec: *//p' <<<"$out")
  awk -v r="$rps" -v t=$((after - before)) -v n="$n" -v u="$TICK_US" 'BEGIN { printf "%.0f %.2f\n", r, (n > 0) ? t * u / n : 0 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0) ? a / b : 0 }'; }
nginx_pids() { local m; m=$(cat "$DIR/nginx.pid"); echo "$m" $(cat "/proc/$m/task/$m/children" 2>/dev/null); }
echo "== GET 304, wrk -t2 -c$CONNECTIONS -d${DURATION}s, $(nproc) cores, $ROUNDS rounds; req/s (CPU us per request) and x nginx"
printf "%-6s %18s %26s %26s %26s\n" round nginx flagserver "C epoll" "C io_uring"
: >"$DIR/rows"
for round in $(seq "$ROUNDS"); do
  read -r ng ngc < <(run nginx "http://127.0.0.1:$NGINX_PORT/production.json" "$NETAG" $(nginx_pids))
  read -r fs fsc < <(run flagserver "$DOC" "$ETAG" "$FS")
  read -r ep epc < <(run epoll "http://127.0.0.1:$EP_PORT/" x "$EP")
  read -r ur urc < <(run uring "http://127.0.0.1:$UR_PORT/" x "$UR")
  echo "$ng $fs $ep $ur" >>"$DIR/rows"
  printf "%-6s %10s (%5s) %11s (%5s) %5.2fx %11s (%5s) %5.2fx %11s (%5s) %5.2fx\n" "r$round" "$ng" "$ngc" "$fs" "$fsc" \
    "$(ratio "$fs" "$ng")" "$ep" "$epc" "$(ratio "$ep" "$ng")" "$ur" "$urc" "$(ratio "$ur" "$ng")"
done
python3 - "$DIR/rows" <<'PY'
import statistics, sys
rows = [[float(v) for v in line.split()] for line in open(sys.argv[1])]
for i, name in ((1, "flagserver"), (2, "C epoll"), (3, "C io_uring")):
    ratios = [r[i] / r[0] for r in rows]
    print("%-11s x nginx: median %.2f, rounds %s; rounds >= 1.5x: %d of %d"
          % (name, statistics.median(ratios), " / ".join("%.2f" % x for x in ratios), sum(x >= 1.5 for x in ratios), len(ratios)))
PY
