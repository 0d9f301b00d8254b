#!/usr/bin/env bash
# Memory held in request bodies under attack (run by hand, not in CI): CONNECTIONS clients (default 200) each
# send the head of a PUT with Content-Length 1048576 and all but the last 100 bytes of its body, then wait.
# Prints flagserver's resident memory (VmRSS) before and while they wait, once without a token and once with
# a valid writer token (the head check refuses the first before any body is read; the server-wide body budget
# bounds the second).
#
#   Benchmarks/body-memory.sh                    # the release build of this tree
#   BIN=/path/to/flagserver Benchmarks/body-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || { swift build -c release --product flagserver >/dev/null; BIN=$PWD/.build/release/flagserver; }
CONNECTIONS=${CONNECTIONS:-200}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/body-memory.XXXXXX")
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$DIR"' EXIT

cat >"$DIR/attack.py" <<'PY'
import socket, sys, time
port, count, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
auth = ("Authorization: Bearer %s\r\n" % token) if token != "-" else ""
head = ("PUT /v1/environments/production/document HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Type: application/json\r\n"
        "If-Match: *\r\nX-Change-Message: memory\r\nContent-Length: 1048576\r\n\r\n" % auth).encode()
body = b" " * (1048576 - 100)
sockets = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    s.settimeout(0.05)
    try:
        s.sendall(head)
        sent = 0
        while sent < len(body):
            sent += s.send(body[sent:sent + 262144])
    except (socket.timeout, BrokenPipeError, ConnectionResetError):
        pass
    sockets.append(s)
time.sleep(1.5)  # let the server read what it is going to read
print("ready", flush=True)
sys.stdin.readline()
PY

rss() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }

run() {  # label token
  rm -f "$DIR/flags.sqlite"*
  local token
  token=$("$BIN" --database "$DIR/flags.sqlite" token create --name attack --role writer | grep '^sfl_')
  [ "$2" = none ] && token=-
  "$BIN" --port 0 --database "$DIR/flags.sqlite" --flags-dir flags --log-level error >"$DIR/out" 2>"$DIR/err" &
  pid=$!
  local port=""
  for _ in $(seq 200); do
    port=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$DIR/out"); [ -n "$port" ] && break; sleep 0.05
  done
  local before
  before=$(rss)
  coproc ATTACK { python3 "$DIR/attack.py" "$port" "$CONNECTIONS" "$token"; }
  read -r _ <&"${ATTACK[0]}"
  printf "%-28s RSS %6s MiB idle, %6s MiB with %d connections each holding ~1 MiB of a PUT body\n" "$1" "$before" "$(rss)" "$CONNECTIONS"
  echo >&"${ATTACK[1]}"; wait "$ATTACK_PID" 2>/dev/null || true
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

echo "== $BIN, $(date -u +%Y-%m-%dT%H:%MZ)"
run "without a token" none
run "with a valid writer token" valid
