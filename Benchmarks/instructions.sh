#!/usr/bin/env bash
# User-space instructions per request, counted by callgrind (run by hand, not in CI). Wall-clock rates on two
# shared cores move by +-10% between runs; instruction counts do not, so this is how a change to the request
# path is judged before the nginx comparisons. Each figure is (Ir after N2 requests - Ir after N1) / (N2 - N1),
# so start-up and shut-down cancel out. Kernel time is not counted (see `strace -c` for system calls).
#
#   Benchmarks/instructions.sh                 # flagserver GET 304, GET 200, one flip; http-bench-server close
#   BIN=/path/to/other/flagserver Benchmarks/instructions.sh   # the same for another build, to compare
#   GET_ONLY=1 Benchmarks/instructions.sh      # only the document GETs (identity and gzip), no flip, no http-bench-server
#   KEEP=/some/dir Benchmarks/instructions.sh  # keep the callgrind files there (callgrind_annotate them)
#   NO_GZIP=1 BIN=... Benchmarks/instructions.sh  # a build from before the gzip variants (no gzip rows)
# nginx serving the same document bytes as a static file is counted the same way (one process), as the peer.
#
# Needs: valgrind (Debian package), python3, curl.
set -euo pipefail
shopt -s inherit_errexit  # a failing client inside $(...) stops the script
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install -y valgrind)" >&2; exit 2; }
[ -n "${BIN:-}" ] || swift build -c release --product flagserver >/dev/null
[ -n "${GET_ONLY:-}${HTTP_BIN:-}" ] || swift build -c release --product http-bench-server >/dev/null
BIN=${BIN:-$PWD/.build/release/flagserver}
HTTP_BIN=${HTTP_BIN:-$PWD/.build/release/http-bench-server}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/instructions.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP"

cat >"$DIR/client.py" <<'PY'
import socket, sys
mode, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
extra = sys.argv[4] if len(sys.argv) > 4 else ""
encoding = sys.argv[5] if len(sys.argv) > 5 else ""

def read_response(s, buf):
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        assert chunk, "connection closed"
        buf += chunk
    head, _, buf = buf.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(buf) < length:
        buf += s.recv(65536)
    return head, buf[length:]

if mode == "close":
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        assert data.startswith(b"HTTP/1.1 200"), data[:60]
        s.close()
else:
    s = socket.create_connection(("127.0.0.1", port))
    buf = b""
    for i in range(n):
        if mode == "get":
            headers = "If-None-Match: %s\r\n" % extra if extra else ""
            if encoding:
                headers += "Accept-Encoding: %s\r\n" % encoding
            request = ("GET /v1/environments/production/document HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n" % (port, headers)).encode()
            expected = b"HTTP/1.1 304" if extra else b"HTTP/1.1 200"
        else:
            body = str(1000 + i).encode()
            request = (b"PUT /v1/environments/production/flags/benchCounter HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       b"Authorization: Bearer " + extra.encode() + b"\r\nContent-Type: application/json\r\n"
                       b"X-Change-Message: instruction count\r\n"
                       b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            expected = b"HTTP/1.1 200"
        s.sendall(request)
        head, buf = read_response(s, buf)
        assert head.startswith(expected), head[:80]
        if mode == "get" and encoding:
            assert b"Content-Encoding: gzip" in head or b"304" in head.split(b"\r\n")[0], head[:400]
PY

# total Ir of flagserver serving `count` requests of `mode`
flagserver_ir() {  # mode count
  local run="$DIR/run-$1-$2"
  mkdir -p "$run"
  local token=""
  [ "$1" = put ] && token=$("$BIN" --database "$run/flags.sqlite" token create --name bench --role writer | grep '^sfl_')
  : >"$run/out"  # the background job opens it later; sed below must find it
  valgrind --tool=callgrind --callgrind-out-file="$run/cg.out" "$BIN" --port 0 --database "$run/flags.sqlite" \
    --flags-dir flags --log-level warning >"$run/out" 2>"$run/err" &
  local pid=$! port=""
  for _ in $(seq 600); do
    port=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$run/out")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "flagserver did not start: $(cat "$run/err")" >&2; exit 1; }
  local extra="" encoding=""
  case $1 in
    get304) extra=$(curl -sfI "http://127.0.0.1:$port/v1/environments/production/document" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r') ;;
    get304gzip)
      encoding="gzip, deflate, br"
      extra=$(curl -sfI -H "Accept-Encoding: $encoding" "http://127.0.0.1:$port/v1/environments/production/document" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r') ;;
    get200gzip) encoding="gzip, deflate, br" ;;
    put)
      extra=$token
      # A bare value only flips an existing flag: create the counter first (in both runs, so it cancels out).
      curl -sf -o /dev/null -X PUT "http://127.0.0.1:$port/v1/environments/production/flags/benchCounter" \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -H 'X-Change-Message: counter' \
        -d '{"type": "integer", "default": 0}'
      ;;
  esac
  local mode=$1
  case $mode in get*) mode=get ;; esac
  python3 "$DIR/client.py" "$mode" "$port" "$2" "$extra" "$encoding"
  kill -TERM "$pid"; wait "$pid" || true
  [ -n "${KEEP:-}" ] && cp "$run/cg.out" "$KEEP/callgrind.$1.$2"
  awk '/^(summary|totals):/ {print $2; exit}' "$run/cg.out"
}

http_close_ir() {  # count
  local run="$DIR/http-$1" port
  mkdir -p "$run/html"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  valgrind --tool=callgrind --callgrind-out-file="$run/cg.out" "$HTTP_BIN" "$port" "" "$run/html/document.json" >"$run/out" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
  python3 "$DIR/client.py" close "$port" "$1"
  kill -TERM "$pid"; wait "$pid" || true
  awk '/^(summary|totals):/ {print $2; exit}' "$run/cg.out"
}

# total Ir of nginx (one process: master_process off) serving `count` GETs of the same document bytes as a
# static file, the peer of Benchmarks/flagserver-vs-nginx.sh (same configuration but for the single process).
nginx_ir() {  # mode count
  local run="$DIR/nginx-$1-$2" port
  mkdir -p "$run/www/v1/environments/production" "$run/logs"
  cp "$DIR/document" "$run/www/v1/environments/production/document"
  chmod -R a+rX "$DIR"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  cat >"$run/nginx.conf" <<CONF
master_process off;
daemon off;
worker_processes 1;
pid $run/nginx.pid;
error_log $run/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  default_type application/json;
  server {
    listen 127.0.0.1:$port deferred;
    root $run/www;
    location = /v1/environments/production/document { add_header Cache-Control "public, max-age=5"; }
  }
}
CONF
  valgrind --tool=callgrind --callgrind-out-file="$run/cg.out" nginx -c "$run/nginx.conf" -p "$run" >"$run/out" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/v1/environments/production/document" && break; sleep 0.2; done
  local extra=""
  [ "$1" = get304 ] && extra=$(curl -sfI "http://127.0.0.1:$port/v1/environments/production/document" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | tr -d '\r')
  python3 "$DIR/client.py" get "$port" "$2" "$extra"
  kill -TERM "$pid"; wait "$pid" || true
  [ -n "${KEEP:-}" ] && cp "$run/cg.out" "$KEEP/callgrind.nginx-$1.$2"
  awk '/^(summary|totals):/ {print $2; exit}' "$run/cg.out"
}

# The document's bytes, as flagserver serves them, for nginx to serve as a file.
fetch_document() {
  local run="$DIR/fetch" port=""
  mkdir -p "$run"
  : >"$run/out"
  "$BIN" --port 0 --database "$run/flags.sqlite" --flags-dir flags --log-level warning >"$run/out" 2>"$run/err" &
  local pid=$!
  for _ in $(seq 600); do
    port=$(sed -n 's#^listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$run/out")
    [ -n "$port" ] && break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$port/v1/environments/production/document" -o "$DIR/document"
  kill -TERM "$pid"; wait "$pid" || true
}

per_request() {  # label n1 n2 ir1 ir2
  printf "%-44s %10d instructions per request\n" "$1" $(( ($5 - $4) / ($3 - $2) ))
}

echo "== user-space instructions per request (callgrind), $(date -u +%Y-%m-%dT%H:%MZ)"
per_request "flagserver GET /document, 304 (keep-alive)" 1000 11000 "$(flagserver_ir get304 1000)" "$(flagserver_ir get304 11000)"
per_request "flagserver GET /document, 200 (keep-alive)" 1000 11000 "$(flagserver_ir get200 1000)" "$(flagserver_ir get200 11000)"
# Accept-Encoding as browsers and URLSession send it; the 304 revalidates the gzip variant's tag (NO_GZIP=1: a
# build from before the gzip variants).
[ -n "${NO_GZIP:-}" ] || per_request "flagserver GET /document, gzip 200" 1000 11000 "$(flagserver_ir get200gzip 1000)" "$(flagserver_ir get200gzip 11000)"
[ -n "${NO_GZIP:-}" ] || per_request "flagserver GET /document, gzip 304" 1000 11000 "$(flagserver_ir get304gzip 1000)" "$(flagserver_ir get304gzip 11000)"
if command -v nginx >/dev/null; then
  fetch_document
  per_request "nginx static file GET, 304 (keep-alive)" 1000 11000 "$(nginx_ir get304 1000)" "$(nginx_ir get304 11000)"
  per_request "nginx static file GET, 200 (keep-alive)" 1000 11000 "$(nginx_ir get200 1000)" "$(nginx_ir get200 11000)"
fi
[ -n "${GET_ONLY:-}" ] && exit 0
per_request "flagserver PUT of one flag (one per commit)" 200 1200 "$(flagserver_ir put 200)" "$(flagserver_ir put 1200)"
per_request "http-bench-server, Connection: close" 500 3500 "$(http_close_ir 500)" "$(http_close_ir 3500)"
