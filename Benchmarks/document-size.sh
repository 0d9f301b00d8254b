#!/usr/bin/env bash
# Cost as the work grows (issue #27, item 6), run by hand (never in CI): one production-like document with
# 10, 100, 1,000 and 3,000 flags, and for each
#   - a flip (PUT .../flags/{key} of a bare value, one connection, each a new durable version) and a dry run of
#     the same PUT (?dryRun=true): median and p90 wall time over FLIPS requests;
#   - the server's resident memory after them, the envelope's bytes and its gzip variant's;
#   - with CALLGRIND=1 also user-space instructions per flip (callgrind, the difference between two runs).
# Wall times on a shared machine are noisy (the load average is printed); instruction counts are not.
# Needs: python3, curl (valgrind for CALLGRIND=1). Tunables: SIZES, FLIPS.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench
swift build -c release --product flagserver >/dev/null
BIN=${BIN:-$PWD/.build/release/flagserver}
SIZES=${SIZES:-10 100 1000 3000}
FLIPS=${FLIPS:-200}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/document-size.XXXXXX")
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT

# flags/production.json's ten flags repeated (renamed) until the document has N flags; every copy keeps its
# rules and `requires` (pointing at its own copy), so the document is as hard to validate as production's.
make_document() {  # N DIRECTORY
  python3 - "$1" "$2" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
source = json.load(open("flags/production.json"))
flags = {}
base = list(source["flags"].items())
copy = 0
while len(flags) < n:
    for key, flag in base:
        if len(flags) >= n: break
        name = key if copy == 0 else "%s%d" % (key, copy)
        flag = json.loads(json.dumps(flag))
        if "requires" in flag:
            flag["requires"] = {(k if copy == 0 else "%s%d" % (k, copy)): v for k, v in flag["requires"].items()}
        flags[name] = flag
    copy += 1
# `requires` may only name flags that exist in the document.
for flag in flags.values():
    if "requires" in flag:
        flag["requires"] = {k: v for k, v in flag["requires"].items() if k in flags}
        if not flag["requires"]: del flag["requires"]
flags["benchCounter"] = {"type": "integer", "default": 0}
document = dict(source, flags=flags)
json.dump(document, open(out + "/production.json", "w"), indent=1)
PY
}

cat >"$DIR/client.py" <<'PY'
import socket, statistics, sys, time
port, n, token, query = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.create_connection(("127.0.0.1", port))
buf = b""
times = []
for i in range(n):
    body = str(1000 + i).encode()
    request = (b"PUT /v1/environments/production/flags/benchCounter" + query.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               b"Authorization: Bearer " + token.encode() + b"\r\nContent-Type: application/json\r\n"
               b"X-Change-Message: size bench\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    start = time.perf_counter()
    s.sendall(request)
    while b"\r\n\r\n" not in buf: buf += s.recv(1 << 20)
    head, _, buf = buf.partition(b"\r\n\r\n")
    length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1])
    while len(buf) < length: buf += s.recv(1 << 20)
    buf = buf[length:]
    times.append((time.perf_counter() - start) * 1000)
    assert head.startswith(b"HTTP/1.1 200"), head[:100]
times.sort()
print("%.2f %.2f" % (statistics.median(times), times[int(len(times) * 0.9)]))
PY

start_server() {  # DATABASE FLAGSDIR [valgrind args...]
  local db=$1 flags=$2; shift 2
  : >"$DIR/out"
  "$@" "$BIN" --port 0 --database "$db" --flags-dir "$flags" --log-level warning >"$DIR/out" 2>"$DIR/err" &
  PID=$!
  for _ in $(seq 1200); do
    PORT=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$DIR/out")
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "flagserver did not start: $(cat "$DIR/err")" >&2; exit 1
}
stop_server() { kill -TERM "$PID"; wait "$PID" || true; PID=""; }

callgrind_flips() {  # FLAGSDIR COUNT -> total Ir
  local run="$DIR/cg-$2"; rm -rf "$run"; mkdir -p "$run"
  local token; token=$("$BIN" --database "$run/flags.sqlite" token create --name bench --role writer | grep '^sfl_')
  start_server "$run/flags.sqlite" "$1" valgrind --tool=callgrind --callgrind-out-file="$run/cg.out"
  python3 "$DIR/client.py" "$PORT" "$2" "$token" "" >/dev/null
  stop_server
  awk '/^(summary|totals):/ {print $2; exit}' "$run/cg.out"
}

echo "== cost as the document grows, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%6s %10s %9s %12s %12s %12s %12s %9s %14s\n" flags "doc bytes" "gzip" "flip med ms" "flip p90 ms" "dry med ms" "dry p90 ms" "RSS MB" "Ir per flip"
for n in $SIZES; do
  mkdir -p "$DIR/flags-$n"
  make_document "$n" "$DIR/flags-$n"
  db="$DIR/size-$n.sqlite"
  token=$("$BIN" --database "$db" token create --name bench --role writer | grep '^sfl_')
  start_server "$db" "$DIR/flags-$n"
  url="http://127.0.0.1:$PORT/v1/environments/production/document"
  bytes=$(curl -sf "$url" | wc -c)
  gz=$(curl -sf -H 'Accept-Encoding: gzip' "$url" | wc -c)
  read -r flip flip90 < <(python3 "$DIR/client.py" "$PORT" "$FLIPS" "$token" "")
  read -r dry dry90 < <(python3 "$DIR/client.py" "$PORT" "$FLIPS" "$token" "?dryRun=true")
  rss=$(awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$PID/status")
  stop_server
  ir="-"
  if [ -n "${CALLGRIND:-}" ]; then
    a=$(callgrind_flips "$DIR/flags-$n" 5); b=$(callgrind_flips "$DIR/flags-$n" 25)
    ir=$(( (b - a) / 20 ))
  fi
  printf "%6d %10d %9d %12s %12s %12s %12s %9s %14s\n" "$n" "$bytes" "$gz" "$flip" "$flip90" "$dry" "$dry90" "$rss" "$ir"
done
echo "(a flip: PUT of one flag's value, a new durable version each; a dry run: the same PUT with ?dryRun=true)"
