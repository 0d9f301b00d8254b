#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run from traps and through check() look unreachable to shellcheck
# Starts the real nginx with deploy/nginx/flagserver.conf.template on loopback, in front of a flag server,
# with a throw-away CA made by openssl, and checks what the nginx front promises:
#   TLS with the certificate checked against that CA, HTTP/2, TLS 1.2 and 1.3 only strong suites, HSTS,
#   the document cached (HIT, 304 from nginx), writes passed through untouched and never cached,
#   the document still served while the server is down (STALE), a flip arriving after the cache time,
#   and a flip's event arriving at once on the event stream (unbuffered through nginx).
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed. Loopback only, bounded in time.
#
# Plug points (environment):
#   FLAGSERVER        the server command (words), default: the Python stand-in deploy/testing/standin-flagserver.py.
#                     With the real one: FLAGSERVER=.build/debug/flagserver deploy/test-tls-front.sh
#   UPSTREAM_CMD      how to start it; must print "listening on http://127.0.0.1:PORT". Evaluated by bash with
#                     $FLAGSERVER $UPSTREAM_PORT (0 first, then the port it chose) $DATA_DIR $FLAGS_DIR set.
#   TOKEN_CMD         prints a writer token (the first sfl_... word is used); same variables.
#   CLIENT_FETCH_CMD  optional: fetches the document the way the app does (FlagClient), with $URL and $CA_FILE
#                     set; prints the document body. Run while the server is up and while it is down.
#   DOC_ENV           environment to fetch (production), FLIP_FLAG boolean flag to flip (showIntroFreeSubscriptionBanner)
#   NGINX             nginx binary (nginx), TEST_TIMEOUT whole-run limit in seconds (240), KEEP_WORK=1 keeps the temp dir
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
export FLAGSERVER=${FLAGSERVER:-"python3 $repo/deploy/testing/standin-flagserver.py"}
# shellcheck disable=SC2016  # expanded later, by the bash that starts the server
UPSTREAM_CMD=${UPSTREAM_CMD:-'exec $FLAGSERVER --host 127.0.0.1 --port $UPSTREAM_PORT --database $DATA_DIR/flags.sqlite --flags-dir $FLAGS_DIR'}
# shellcheck disable=SC2016
# (The database by variable: flagserver of 2026-11-29 takes `--database PATH token ...` as a server option; see docs/deploy.md.)
TOKEN_CMD=${TOKEN_CMD:-'FLAGSERVER_DATABASE=$DATA_DIR/flags.sqlite $FLAGSERVER token create --name tls-front-test --role writer'}
CLIENT_FETCH_CMD=${CLIENT_FETCH_CMD:-}
DOC_ENV=${DOC_ENV:-production}
FLIP_FLAG=${FLIP_FLAG:-showIntroFreeSubscriptionBanner}
NGINX=${NGINX:-nginx}
TEST_TIMEOUT=${TEST_TIMEOUT:-240}
export FLAGS_DIR=${FLAGS_DIR:-$repo/flags}

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

work=$(mktemp -d /tmp/tls-front.XXXXXX)
# nginx's workers run as nobody when started as root: they must be able to reach the cache and temp dirs.
chmod 755 "$work"
export DATA_DIR=$work/data
mkdir -p "$DATA_DIR" "$work/tls" "$work/nginx/conf" "$work/nginx/logs" "$work/nginx/tmp" "$work/http"
chmod 700 "$work/tls" "$DATA_DIR"

upstream_pid='' nginx_pid='' watchdog_pid=''
stop_group() { # pid: SIGTERM to its process group, wait up to 15 s, then SIGKILL; returns the exit status
    local pid=$1 i
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 150; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "  (pid $pid did not stop in 15 s: SIGKILL)"
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
}
cleanup() {
    trap - EXIT INT TERM
    [[ -n $nginx_pid ]] && stop_group "$nginx_pid"
    [[ -n $upstream_pid ]] && stop_group "$upstream_pid"
    [[ -n $watchdog_pid ]] && kill "$watchdog_pid" 2>/dev/null && wait "$watchdog_pid" 2>/dev/null
    if ((failed > 0)); then
        for log in "$work/nginx/logs/error.log" "$work/upstream.err"; do
            [[ -s $log ]] && { echo "--- tail of $log"; tail -n 15 "$log"; }
        done
    fi
    if [[ ${KEEP_WORK:-} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'fail "interrupted or timed out"; exit 1' INT TERM
# The watchdog: the whole run is bounded, whatever hangs.
( trap 'kill "$s" 2>/dev/null; exit 0' TERM; sleep "$TEST_TIMEOUT" & s=$!; wait "$s" &&
  { echo "test-tls-front.sh: $TEST_TIMEOUT s limit reached" >&2; kill -TERM $$; } ) &
watchdog_pid=$!

# ---- the throw-away CA and server certificate (ECDSA P-256; SAN 127.0.0.1 and localhost) ----
tls=$work/tls
{
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=flagserver test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$tls/ca.key" -out "$tls/ca.pem" &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
        -keyout "$tls/server.key" -out "$tls/server.csr" &&
    printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=critical,CA:FALSE" \
        "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" > "$tls/server.ext" &&
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
        -extfile "$tls/server.ext" -out "$tls/server.pem"
} > "$work/openssl.log" 2>&1
check "openssl made a CA and a server certificate it verifies" \
    openssl verify -CAfile "$tls/ca.pem" -verify_ip 127.0.0.1 -verify_hostname localhost "$tls/server.pem"

# ---- free loopback ports for nginx (the server picks its own with --port 0) ----
read -r https_port http_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# ---- the flag server ----
wait_listening() { # file pid -> prints the port once "listening on http://127.0.0.1:PORT" appears (30 s)
    local i line
    for ((i = 0; i < 300; i++)); do
        line=$(grep -m1 -o 'listening on http://127\.0\.0\.1:[0-9]*' "$1" 2>/dev/null) && { echo "${line##*:}"; return 0; }
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
start_upstream() { # port (0: any) -> sets upstream_pid, upstream_port
    export UPSTREAM_PORT=$1
    : > "$work/upstream.out"
    setsid bash -c "$UPSTREAM_CMD" > "$work/upstream.out" 2>> "$work/upstream.err" < /dev/null &
    upstream_pid=$!
    upstream_port=$(wait_listening "$work/upstream.out" "$upstream_pid")
}

token=$(cd "$work" && bash -c "$TOKEN_CMD" 2> "$work/token.err" | grep -m1 -o 'sfl_[A-Za-z0-9_-]*')
check "a writer token was created ($TOKEN_CMD)" test -n "$token"
start_upstream 0
check "the server printed 'listening on http://127.0.0.1:PORT' (port ${upstream_port:-none})" test -n "$upstream_port"
if [[ -z $upstream_port ]]; then
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi

# ---- nginx in its own prefix, the config rendered from the one template ----
prefix=$work/nginx
"$repo/deploy/nginx/render-conf.sh" UPSTREAM="127.0.0.1:$upstream_port" CACHE_DIR="$prefix/cache" \
    HTTP_LISTEN="127.0.0.1:$http_port" HTTPS_LISTEN="127.0.0.1:$https_port" HTTPS_ORIGIN="https://\$host:$https_port" \
    SERVER_NAME=localhost CERT="$tls/server.pem" KEY="$tls/server.key" > "$prefix/conf/flagserver.conf"
"$repo/deploy/testing/nginx-prefix-conf.sh" "$prefix" > "$prefix/conf/nginx.conf"
check "the committed deploy/nginx/flagserver.conf is the template rendered with production values" \
    cmp -s <("$repo/deploy/nginx/render-conf.sh") "$repo/deploy/nginx/flagserver.conf"
check "nginx -t accepts the rendered config" \
    "$NGINX" -t -q -p "$prefix/" -c "$prefix/conf/nginx.conf" -e "$prefix/logs/error.log"
setsid "$NGINX" -p "$prefix/" -c "$prefix/conf/nginx.conf" -e "$prefix/logs/error.log" -g 'daemon off;' \
    > "$prefix/logs/stdout.log" 2>&1 < /dev/null &
nginx_pid=$!

base=https://127.0.0.1:$https_port
doc_path=/v1/environments/$DOC_ENV/document
# request NAME [curl args...] URL: body in $work/http/NAME.body, headers in NAME.head, prints "STATUS HTTPVERSION"
request() {
    local name=$1; shift
    curl -sS --max-time 5 --cacert "$tls/ca.pem" --http2 -o "$work/http/$name.body" -D "$work/http/$name.head" \
        -w '%{http_code} %{http_version}' "$@" 2> "$work/http/$name.err"
}
header() { grep -i "^$2:" "$work/http/$1.head" | tail -n1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }
same_body() { cmp -s "$work/http/$1.body" "$work/http/$2.body"; }
flag_default() { # NAME -> the JSON of flags[FLIP_FLAG].default in that body (envelope or bare document)
    python3 - "$work/http/$1.body" "$FLIP_FLAG" <<'EOF'
import json, sys
value = json.load(open(sys.argv[1]))
document = value.get("document", value)
print(json.dumps(document["flags"][sys.argv[2]]["default"]))
EOF
}

ready=''
for ((i = 0; i < 200; i++)); do
    [[ $(request ready "$base/healthz") == "200 "* ]] && { ready=1; break; }
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.1
done
check "nginx started in its own prefix and proxies /healthz over HTTPS" test -n "$ready"

# ---- TLS: the certificate is checked, HTTP/2, protocol versions and suites ----
result=$(request first "$base$doc_path")
check "document GET through nginx: 200 ($result)" test "${result% *}" = 200
check "HTTP/2 was negotiated (curl --http2: ${result#* })" test "${result#* }" = 2
check "the first GET was a cache MISS ($(header first X-Cache-Status))" test "$(header first X-Cache-Status)" = MISS
etag=$(header first ETag)
check "the document has an ETag ($etag)" test -n "$etag"
check "HSTS header on the document" grep -qi '^strict-transport-security: max-age=63072000' "$work/http/first.head"
result=$(request byname --resolve "localhost:$https_port:127.0.0.1" "https://localhost:$https_port$doc_path")
check "the name in the certificate's SAN works too (https://localhost: $result)" test "${result% *}" = 200
curl -sS --max-time 5 -o /dev/null "$base$doc_path" 2> /dev/null
code=$?
check "without the test CA curl refuses the certificate (exit $code, 60 = peer certificate not trusted)" test "$code" = 60
tls_probe() { # extra openssl s_client args; succeeds when the handshake completes with a verified certificate
    timeout 10 openssl s_client -connect "127.0.0.1:$https_port" -servername localhost -CAfile "$tls/ca.pem" \
        -verify_return_error "$@" < /dev/null > "$work/s_client.log" 2>&1
}
check "TLS 1.3 handshake, certificate verified" tls_probe -tls1_3
check "TLS 1.2 handshake with ECDHE-ECDSA-AES128-GCM-SHA256" tls_probe -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256
# OpenSSL's client would offer this CBC suite; only the server's ssl_ciphers can refuse it.
cbc_refused() { ! tls_probe -tls1_2 -cipher ECDHE-ECDSA-AES128-SHA; }
check "TLS 1.2 with a CBC suite (ECDHE-ECDSA-AES128-SHA) is refused" cbc_refused

# ---- the cache ----
result=$(request second "$base$doc_path")
check "second GET: 200 from the cache (X-Cache-Status $(header second X-Cache-Status))" \
    test "${result% *} $(header second X-Cache-Status)" = "200 HIT"
check "the cached body is the body flagserver sent" same_body first second
result=$(request conditional -H "If-None-Match: $etag" "$base$doc_path")
check "If-None-Match with the current ETag: 304 ($result, $(header conditional X-Cache-Status))" test "${result% *}" = 304
# gzip: flagserver's variant (compressed once per version, its own ETag) passes through and is cached beside the
# identity one; curl --compressed asks for it and decodes it.
result=$(request gzip --compressed "$base$doc_path")
check "GET with Accept-Encoding gzip: 200 with Content-Encoding gzip ($result, $(header gzip Content-Encoding))" \
    test "${result% *} $(header gzip Content-Encoding)" = "200 gzip"
check "  ... decoded, the same envelope as the identity body" same_body first gzip
gzip_etag=$(header gzip ETag)
check "  ... under the gzip representation's own ETag ($gzip_etag)" test "$gzip_etag" = "${etag%\"}-gzip\""
check "  ... and Vary: Authorization, Accept-Encoding" test "$(header gzip Vary)" = "Authorization, Accept-Encoding"
result=$(request gzip-again -H 'Accept-Encoding: gzip, br' "$base$doc_path")
check "the gzip variant is cached too (X-Cache-Status $(header gzip-again X-Cache-Status))" \
    test "${result% *} $(header gzip-again X-Cache-Status) $(header gzip-again Content-Encoding)" = "200 HIT gzip"
gzip_bytes=$(stat -c %s "$work/http/gzip-again.body")
check "  ... in fewer bytes than half the identity body ($gzip_bytes of $(stat -c %s "$work/http/first.body"))" \
    test $((gzip_bytes * 2)) -lt "$(stat -c %s "$work/http/first.body")"
result=$(request identity-again "$base$doc_path")
check "the identity variant is still served to clients without gzip (X-Cache-Status $(header identity-again X-Cache-Status))" \
    test "${result% *} $(header identity-again X-Cache-Status) $(header identity-again Content-Encoding)" = "200 HIT "
result=$(request gzip-conditional -H 'Accept-Encoding: gzip' -H "If-None-Match: $gzip_etag" "$base$doc_path")
check "If-None-Match with the gzip ETag: 304 ($result)" test "${result% *}" = 304
result=$(request query "$base$doc_path?nocache=$RANDOM")
check "a query string does not walk past the cache (X-Cache-Status $(header query X-Cache-Status))" \
    test "${result% *} $(header query X-Cache-Status)" = "200 HIT"
result=$(request redirect --http1.1 "http://127.0.0.1:$http_port$doc_path")
check "plain HTTP answers 308 to https ($result, $(header redirect Location))" \
    test "${result% *} $(header redirect Location)" = "308 $base$doc_path"

# ---- writes: passed through untouched (status and JSON body from the server), never cached ----
flag_path=/v1/environments/$DOC_ENV/flags/$FLIP_FLAG
old_value=$(flag_default first)
new_value=$([[ $old_value == true ]] && echo false || echo true)
write() { # name [curl args]: a PUT of the flip with the message and content type the API requires
    local name=$1; shift
    request "$name" -X PUT -H 'Content-Type: application/json' -H 'X-Change-Message: tls front test' \
        --data "$new_value" "$@" "$base$flag_path"
}
result=$(write unauthorized)
check "PUT without a token: the server's 401 passes through ($result)" test "${result% *}" = 401
check "  ... with the server's JSON error body, not an nginx page" grep -q '"error"' "$work/http/unauthorized.body"
result=$(write stale -H "Authorization: Bearer $token" -H 'If-Match: "0-0000000000000000"')
check "PUT with the token and a stale If-Match: 412 (Authorization and If-Match reached the server: $result)" \
    test "${result% *}" = 412
result=$(write stale-again -H "Authorization: Bearer $token" -H 'If-Match: "0-0000000000000000"')
check "the same PUT again reaches the server again (412, no X-Cache-Status: '$(header stale-again X-Cache-Status)')" \
    test "${result% *} $(header stale-again X-Cache-Status)" = "412 "

# ---- the ops console (docs/console.md): proxied by location /, its own security headers intact ----
result=$(request console "$base/console/")
if [[ $result == "200 "* ]]; then
    check "the console's page through nginx has flagserver's Content-Security-Policy" \
        grep -qi "^content-security-policy: default-src 'self'; script-src 'self';" "$work/http/console.head"
    check "  ... and X-Content-Type-Options: nosniff" grep -qi '^x-content-type-options: nosniff' "$work/http/console.head"
    check "  ... and is not cached by nginx (no X-Cache-Status: '$(header console X-Cache-Status)')" \
        test -z "$(header console X-Cache-Status)"
else
    skip "the console through nginx: the upstream serves none ($result; the stand-in has no console)"
fi

if [[ -n $CLIENT_FETCH_CMD ]]; then
    URL=$base$doc_path CA_FILE=$tls/ca.pem timeout 30 bash -c "$CLIENT_FETCH_CMD" > "$work/http/client-up.body" 2> "$work/client.err"
    check "CLIENT_FETCH_CMD fetched the document through nginx (exit $?$(head -c 300 "$work/client.err" | tr "\n" " "))" same_body first client-up
else
    skip "CLIENT_FETCH_CMD not set: the app's fetch (FlagClient) through nginx"
fi

# ---- the server goes away: the cached document is still served ----
filled=$(now)
stop_group "$upstream_pid"
code=$?
upstream_pid=''
check "the server stopped on SIGTERM with exit 0 (exit $code)" test "$code" = 0
# Let the cached entry expire, so what follows is served stale, not fresh (proxy_cache_valid 200 5s).
sleep 6
all_stale=1
for n in 1 2 3; do
    result=$(request "down-$n" "$base$doc_path")
    status=$(header "down-$n" X-Cache-Status)
    echo "  while down, GET $n: $result $status"
    [[ ${result% *} == 200 && ($status == STALE || $status == UPDATING) ]] && same_body first "down-$n" || all_stale=''
done
check "server down, entry expired $(elapsed "$filled") s ago: 3 GETs all 200 STALE with the last document" test -n "$all_stale"
result=$(request down-conditional -H "If-None-Match: $etag" "$base$doc_path")
check "server down: a revalidating app still gets 304 for its ETag ($result)" test "${result% *}" = 304
result=$(write down-write -H "Authorization: Bearer $token" -H "If-Match: $etag")
check "server down: a PUT is never answered from the cache (502: $result)" test "${result% *}" = 502
if [[ -n $CLIENT_FETCH_CMD ]]; then
    URL=$base$doc_path CA_FILE=$tls/ca.pem timeout 30 bash -c "$CLIENT_FETCH_CMD" > "$work/http/client-down.body" 2> "$work/client.err"
    check "CLIENT_FETCH_CMD got the document while the server was down (exit $?)" same_body first client-down
else
    skip "CLIENT_FETCH_CMD not set: the app's fetch (FlagClient) while the server is down"
fi

# ---- the server comes back; a flip arrives through the proxy after the cache time ----
start_upstream "$upstream_port"
check "the server restarted on the same port (${upstream_port:-none})" test -n "$upstream_port"
# The stale entry is refreshed in the background by the next GET; wait until it is fresh again (HIT).
fresh=''
deadline=$(($(date +%s) + 20))
while (($(date +%s) < deadline)); do
    request refresh "$base$doc_path" > /dev/null
    [[ $(header refresh X-Cache-Status) == HIT ]] && { fresh=$(now); break; }
    sleep 0.2
done
check "after the restart the cached entry was refreshed (HIT again)" test -n "$fresh"
result=$(write flip -H "Authorization: Bearer $token" -H "If-Match: $etag")
flipped=$(now)
check "PUT $flag_path = $new_value with the token and If-Match: 2xx ($result)" test "${result:0:1}" = 2
result=$(request just-after "$base$doc_path")
age=$(elapsed "${fresh:-$flipped}")
if awk -v a="$age" 'BEGIN { exit !(a < 4) }'; then
    check "right after the flip the cache still serves the old value (entry ${age} s old, HIT, $old_value)" \
        test "$(header just-after X-Cache-Status) $(flag_default just-after)" = "HIT $old_value"
else
    skip "old value right after the flip not asserted: the entry was already ${age} s old (slow machine)"
fi
arrived=''
deadline=$(($(date +%s) + 20))
while (($(date +%s) < deadline)); do
    request poll "$base$doc_path" > /dev/null
    [[ $(flag_default poll 2> /dev/null) == "$new_value" ]] && { arrived=$(elapsed "$flipped"); break; }
    sleep 0.25
done
check "the flip arrived through nginx ${arrived:-never} s after the PUT (cache time 5 s, limit 20 s)" test -n "$arrived"
new_etag=$(header poll ETag)
check "the new document has a new ETag ($new_etag)" test -n "$new_etag" -a "$new_etag" != "$etag"
result=$(request old-etag -H "If-None-Match: $etag" "$base$doc_path")
check "an app revalidating with the old ETag now gets 200 and the new document ($result)" \
    test "${result% *} $(flag_default old-etag)" = "200 $new_value"


# ---- the event stream: a flip's event passes through TLS at once (no proxy buffering, no cache) ----
events_path=/v1/environments/$DOC_ENV/events
curl -sSN --max-time 20 --cacert "$tls/ca.pem" --http2 -D "$work/http/events.head" "$base$events_path" \
    > "$work/http/events.body" 2> "$work/http/events.err" &
events_pid=$!
for ((i = 0; i < 100; i++)); do  # the head and the `retry:` preamble come at once, or a 404 (no event stream)
    grep -qs '^retry:' "$work/http/events.body" && break
    grep -qs '^HTTP/[0-9.]* [1-9]' "$work/http/events.head" && ! grep -qs '^HTTP/[0-9.]* 200' "$work/http/events.head" && break
    sleep 0.1
done
if grep -qs '^HTTP/[0-9.]* 200' "$work/http/events.head"; then
    check "the event stream is text/event-stream, not cached ($(header events Content-Type))" \
        test "$(header events Content-Type) $(header events X-Cache-Status)" = "text/event-stream "
    request flip-back -X PUT -H 'Content-Type: application/json' -H 'X-Change-Message: tls front test, events' \
        -H "Authorization: Bearer $token" --data "$old_value" "$base$flag_path" > /dev/null
    flipped=$(now)
    event_after=''
    for ((i = 0; i < 100; i++)); do
        grep -qs '"type":"refetchEvaluation"' "$work/http/events.body" && { event_after=$(elapsed "$flipped"); break; }
        sleep 0.05
    done
    check "the flip back's event arrived through nginx ${event_after:-never} s after the PUT (limit 5 s)" test -n "$event_after"
    # With a token the request bypasses the 5 s cache (proxy_cache_bypass): the ETag flagserver has now.
    result=$(request after-event -H "Authorization: Bearer $token" "$base$doc_path")
    event_etag=$(sed -n 's/.*"etag":"\\"\([^"\\]*\)\\"".*/"\1"/p' "$work/http/events.body" | tail -n1)
    check "the event names the new document's ETag ($event_etag)" test "$event_etag" = "$(header after-event ETag)"
else
    skip "event stream: $events_path is not served by this upstream ($(head -n1 "$work/http/events.head" | tr -d '\r'))"
fi
kill "$events_pid" 2> /dev/null; wait "$events_pid" 2> /dev/null

echo "$passed passed, $failed failed, $skipped skipped"
if ((failed > 0)); then exit 1; fi
exit 0
