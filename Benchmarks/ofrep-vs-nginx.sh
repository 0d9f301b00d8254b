#!/usr/bin/env bash
# Single-flag OFREP evaluations per second over HTTP (wrk, POST with a JSON context) against
# nginx serving a static file of the same size, in the same run. Run by hand, never in CI.
#
#   Benchmarks/ofrep-vs-nginx.sh [--server-cmd "CMD"]   (CMD must print "listening on http://HOST:PORT")
#
# Default server: the release ofrep-test-server over flags/production.json. Later, point it at
# flagserver with --server-cmd. Environment: DURATION (s, default 10), CONNECTIONS (default 64),
# THREADS (wrk threads, default 2), ROUNDS (default 2; the rounds alternate ofrep/nginx).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine
duration=${DURATION:-10}
connections=${CONNECTIONS:-64}
threads=${THREADS:-2}
rounds=${ROUNDS:-2}
server_cmd=""
[[ ${1:-} == --server-cmd ]] && server_cmd=$2
for tool in wrk nginx curl python3; do
    command -v "$tool" >/dev/null || { echo "ofrep-vs-nginx: $tool is missing (scripts/bootstrap)" >&2; exit 2; }
done

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

if [[ -z $server_cmd ]]; then
    swift build -c release --product ofrep-test-server -Xswiftc -warnings-as-errors >/dev/null
    server_cmd="$(swift build -c release --show-bin-path)/ofrep-test-server --env production=flags/production.json"
fi
$server_cmd >"$work/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do grep -qs "^listening on " "$work/server.log" && break; sleep 0.05; done
base=$(sed -n 's/^listening on //p' "$work/server.log")
[[ -n $base ]] || { echo "ofrep-vs-nginx: server did not start: $(cat "$work/server.log")" >&2; exit 1; }

flag=premiumFeaturesLocked
body='{"context":{"targetingKey":"9F1C2D7E-0000-4000-8000-000000000001","locale":"de-DE","appVersion":"2.4.0","channel":"appstore","platform":"ios"}}'
url="$base/ofrep/v1/evaluate/flags/$flag"
curl -sf -X POST -H 'Content-Type: application/json' -d "$body" "$url" >"$work/response.json" \
    || { echo "ofrep-vs-nginx: POST $url failed" >&2; exit 1; }
size=$(wc -c <"$work/response.json")
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
LUA

# nginx: the same bytes as a static file, on another loopback port.
mkdir -p "$work/www" "$work/nginx"
cp "$work/response.json" "$work/www/flag.json"
nginx_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    default_type application/json;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$nginx_port deferred;  # TCP_DEFER_ACCEPT, as flagserver by default
        root $work/www;
    }
}
CONF
chmod -R a+rX "$work"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$nginx_port/flag.json" >/dev/null && break; sleep 0.05; done
cmp -s <(curl -sf "http://127.0.0.1:$nginx_port/flag.json") "$work/response.json" \
    || { echo "ofrep-vs-nginx: nginx does not serve the file" >&2; exit 1; }

# Runs wrk and prints requests/s; refuses a run with errors or non-2xx answers.
measure() {
    local out
    out=$(wrk -t"$threads" -c"$connections" -d"${duration}s" "$@")
    if grep -q 'Non-2xx\|Socket errors' <<<"$out"; then
        echo "ofrep-vs-nginx: errors during the run:" >&2; echo "$out" >&2; exit 1
    fi
    awk '/^Requests\/sec:/ {print $2}' <<<"$out"
}

echo "response: $size bytes ($url)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; wrk -t$threads -c$connections -d${duration}s, $rounds rounds"
results=()
for round in $(seq 1 "$rounds"); do
    o=$(measure -s "$work/post.lua" "$url")
    n=$(measure "http://127.0.0.1:$nginx_port/flag.json")
    echo "round $round: ofrep POST $o req/s, nginx GET static $n req/s, ratio $(python3 -c "print(f'{$o / $n:.2f}')")x"
    results+=("$o/$n")
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The median of the per-round ratios: each round measures both peers within seconds of each other,
# which cancels most of the drift in background load between rounds.
python3 -c "
import statistics
pairs = [tuple(map(float, p.split('/'))) for p in '${results[*]}'.split()]
o = statistics.median(p[0] for p in pairs); n = statistics.median(p[1] for p in pairs)
r = statistics.median(p[0] / p[1] for p in pairs)
print(f'ofrep single-flag: {o:,.0f} req/s (median); nginx static $size B: {n:,.0f} req/s (median); '
      f'median ratio {r:.2f}x (target >= 0.70x)')"
