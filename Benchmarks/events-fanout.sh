#!/usr/bin/env bash
# Event-stream fan-out on this machine (run by hand, never in CI): SUBSCRIBERS (10,000) open streams on
# the real release flagserver, held by one epoll program (Benchmarks/sse-fanout/sse-fanout.c, built here
# with cc); FLIPS (5) PUTs, each timed from the PUT's answer to every subscriber's read of its event
# (p50, p99, max); the server's RSS without and with the streams; and document-GET throughput (wrk,
# WRK_SECONDS each) without streams, with them open, and without again, in the same run.
#
#   Benchmarks/events-fanout.sh            # needs wrk (./scripts/bootstrap --bench) and a C compiler
set -euo pipefail
cd "$(dirname "$0")/.."
subscribers=${SUBSCRIBERS:-10000}
flips=${FLIPS:-5}
seconds=${WRK_SECONDS:-10}
command -v wrk >/dev/null || { echo "wrk is not installed (./scripts/bootstrap --bench)" >&2; exit 2; }
# Every subscriber is a descriptor in the fan-out and one in the server (separate processes, so each needs
# a little over SUBSCRIBERS). Raised to the hard limit; a container may cap that (20,000 here).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(($(ulimit -n) >= subscribers + 1100)) || { echo "ulimit -n is $(ulimit -n): too few for $subscribers subscribers" >&2; exit 2; }
swift build -c release --product flagserver >/dev/null
bin=$PWD/.build/release/flagserver
dir=$(mktemp -d "${TMPDIR:-/tmp}/events-fanout.XXXXXX")
server_pid='' fanout_pid=''
cleanup() {
    exec 3>&- 2>/dev/null || true
    [[ -n $fanout_pid ]] && { kill "$fanout_pid" 2>/dev/null || true; wait "$fanout_pid" 2>/dev/null || true; }
    [[ -n $server_pid ]] && { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
    rm -rf "$dir"
}
trap cleanup EXIT
cc -O2 -Wall -o "$dir/sse-fanout" Benchmarks/sse-fanout/sse-fanout.c
token=$("$bin" --database "$dir/flags.sqlite" token create --name bench --role writer | grep '^sfl_')
"$bin" --port 0 --database "$dir/flags.sqlite" --flags-dir flags --log-level warning \
    --max-connections $((subscribers + 1000)) --max-streams $((subscribers + 100)) >"$dir/server.out" 2>"$dir/server.err" &
server_pid=$!
port=''
for _ in $(seq 300); do
    port=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$dir/server.out")
    [[ -n $port ]] && break
    sleep 0.1
done
[[ -n $port ]] || { echo "flagserver did not start: $(cat "$dir/server.err")" >&2; exit 1; }
url=http://127.0.0.1:$port/v1/environments/production/document
rss() { awk '/^VmRSS:/ {printf "%.1f MB", $2 / 1024}' "/proc/$server_pid/status"; }
rate() { wrk -t1 -c32 -d"${seconds}s" "$url" | awk '/^Requests\/sec:/ {print $2}'; }

echo "== event fan-out, $(date -u +%Y-%m-%dT%H:%MZ), $subscribers subscribers, $(nproc) cores"
curl -sf -o /dev/null "$url"
echo "server RSS without streams: $(rss)"
before=$(rate)
echo "document GET without streams: $before req/s"
mkfifo "$dir/hold"
"$dir/sse-fanout" "$port" production "$token" "$subscribers" "$flips" <"$dir/hold" >"$dir/fanout.out" &
fanout_pid=$!
exec 3>"$dir/hold"  # the fan-out holds its streams until this closes
for _ in $(seq 3000); do
    grep -q '^holding' "$dir/fanout.out" && break
    kill -0 "$fanout_pid" 2>/dev/null || { cat "$dir/fanout.out"; echo "sse-fanout failed" >&2; exit 1; }
    sleep 0.1
done
grep -v '^holding' "$dir/fanout.out"
echo "server RSS with $subscribers open streams: $(rss)"
with=$(rate)
echo "document GET with $subscribers streams open: $with req/s"
exec 3>&-
wait "$fanout_pid"
fanout_pid=''
for _ in $(seq 100); do
    [[ $(curl -s "http://127.0.0.1:$port/metrics" | awk '/^flagserver_open_streams / {print $2}') == 0 ]] && break
    sleep 0.1
done
after=$(rate)
echo "document GET without streams again: $after req/s"
awk -v w="$with" -v b="$before" -v a="$after" 'BEGIN { printf "with streams / without (mean of before and after): %.2fx\n", w / ((b + a) / 2) }'
