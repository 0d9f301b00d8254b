#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run from traps and through check() look unreachable to shellcheck
# The PostgreSQL layout of docs/deploy.md run for real on this one machine (loopback, free ports, a temp dir):
# one etcd, three PostgreSQL 15 nodes under Patroni (Debian's patroni and etcd-server), three flagserver nodes
# on the multi-host URI, nginx in front with all three as upstreams. Every config is rendered from the shipped
# templates (deploy/cluster/render.sh, deploy/nginx/render-conf.sh) with only addresses, ports and paths
# changed. Node 3 reaches PostgreSQL through relays that can be cut (deploy/testing/tcp-relay.py). Then, while
# a probe reads and writes through nginx the whole time (deploy/testing/failover-probe.py):
#   1. a flip through nginx reaches every node's GET and an event stream through nginx;
#   2. the database is slow: a lock held 12 s on the versions table (what a write answers meanwhile);
#   3. node 3 loses the database (its relays cut): its writes and /readyz, the other nodes unaffected,
#      node 3 catching up once it is back;
#   4. node 3 killed with SIGKILL: nginx keeps answering reads and writes;
#   5. the primary's host dies (Patroni and PostgreSQL killed with SIGKILL): Patroni fails over to the
#      synchronous standby, reads never stop, writes resume through nginx without restarting flagserver;
#      the old primary, started again, rejoins as a replica;
#   6. a planned switchover with patronictl;
#   7. every version the probe saw acknowledged is in the history with its hash, numbered without gaps.
# Prints TIMING lines (seconds to failover, seconds without writes, ...). Never touches the machine's own
# PostgreSQL cluster or ports 5432/2379: everything listens on free loopback ports and lives in the temp dir.
# Needs FLAGSERVER_BIN (skips without), patroni, etcd, nginx and PostgreSQL's binaries (deploy/debian-packages.txt;
# skips naming what is missing). As root, PostgreSQL and Patroni run as the `postgres` user (as in production).
# Environment: PG_BIN (default: newest /usr/lib/postgresql/*/bin), TEST_TIMEOUT (420 s), KEEP_WORK=1.
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=testing/cluster-lib.sh
source "$repo/deploy/testing/cluster-lib.sh"
TEST_TIMEOUT=${TEST_TIMEOUT:-420}

missing_for_cluster patronictl   # nothing beyond the common tools
if ((${#missing[@]} > 0)); then
    skip "the Patroni layout needs: ${missing[*]} (deploy/test-all.sh installs the packages as root)"
    finish
fi

work=$(mktemp -d /tmp/patroni-test.XXXXXX)
chmod 755 "$work"   # the postgres user and nginx's workers (nobody) reach their directories below
as_pg=()
if [[ $(id -u) == 0 ]]; then
    id postgres > /dev/null 2>&1 || { skip "running as root but there is no postgres user (Debian's postgresql package makes it)"; rm -rf "$work"; finish; }
    as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi
pg_owner=$(if ((${#as_pg[@]} > 0)); then echo postgres; else id -un; fi)

etcd_pid='' nginx_pid='' relay_pid='' probe_pid='' watchdog_pid='' readyz_pid=''
cleanup() {
    trap - EXIT INT TERM
    touch "$work/probe.stop"
    stop_pid "$probe_pid"; stop_pid "$readyz_pid"
    stop_pid "$nginx_pid"
    # Nothing here is kept: PostgreSQL is killed at once.
    stop_cluster
    stop_pid "$etcd_pid"; stop_pid "$relay_pid"
    [[ -n $watchdog_pid ]] && kill "$watchdog_pid" 2>/dev/null && wait "$watchdog_pid" 2>/dev/null
    ((failed > 0)) && tail_logs "$work"/db?/patroni.log "$work"/app?.err "$work/etcd.log" "$work/nginx/logs/error.log"
    if [[ ${KEEP_WORK:-} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'fail "interrupted or timed out"; exit 1' INT TERM
start_watchdog test-patroni.sh

# ---- free loopback ports (none of them 5432 or 2379: the kernel's ephemeral range) ----
read -r etcd_client etcd_peer pg1 pg2 pg3 api1 api2 api3 app1 app2 app3 https_port http_port relay1 relay2 relay3 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(16)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
pg_ports=("$pg1" "$pg2" "$pg3") app_ports=("$app1" "$app2" "$app3")
api_urls=("http://127.0.0.1:$api1" "http://127.0.0.1:$api2" "http://127.0.0.1:$api3")

# ---- the configuration, rendered from the shipped templates ----
mkdir -p "$work/bin" "$work/etcd" "$work/nginx/conf" "$work/nginx/logs" "$work/nginx/tmp" "$work/http"
for node in 1 2 3; do mkdir -p "$work/db$node/log"; done
chown -R "$pg_owner" "$work"/db?
chmod 700 "$work"/db?
cp "$repo/deploy/cluster/patroni-post-bootstrap" "$work/bin/"   # reachable by postgres whatever the checkout's modes
render_args=("DB_ADDRESSES=127.0.0.1,127.0.0.1,127.0.0.1" PG_PORTS="$pg1,$pg2,$pg3" API_PORTS="$api1,$api2,$api3"
    DATA_DIRS="$work/db1/data,$work/db2/data,$work/db3/data" SOCKET_DIRS="$work/db1,$work/db2,$work/db3"
    LOG_DIRS="$work/db1/log,$work/db2/log,$work/db3/log" PGPASS_FILES="$work/db1/pgpass,$work/db2/pgpass,$work/db3/pgpass"
    BIN_DIR="$PG_BIN" POST_BOOTSTRAP="$work/bin/patroni-post-bootstrap" NETWORK=127.0.0.1/32
    ETCD_ADDRESSES=127.0.0.1 ETCD_CLIENT_PORTS="$etcd_client" ETCD_PEER_PORTS="$etcd_peer" ETCD_DATA_DIRS="$work/etcd"
    "APP_ADDRESSES=127.0.0.1,127.0.0.1,127.0.0.1" APP_PORTS="$app1,$app2,$app3" FRONT_ADDRESS=127.0.0.1 FLAGS_DIR="$repo/flags"
    PGPASSFILE="$work/pgpass")
"$repo/deploy/cluster/render.sh" "${render_args[@]}" "$work/conf" 2> "$work/render.err"
check "deploy/cluster/render.sh rendered the layout for loopback ($(cat "$work/render.err"))" test -s "$work/conf/app3/flagserver.env"
# Node 3 reaches the database through relays that step 3 cuts: the same template with the relays' ports.
"$repo/deploy/cluster/render.sh" "${render_args[@]}" PG_PORTS="$relay1,$relay2,$relay3" "$work/conf-relayed" 2>> "$work/render.err"
"$repo/deploy/cluster/render.sh" "$work/production" > /dev/null 2>&1
drift() { diff -r "$work/production" "$repo/deploy/cluster/hosts" > "$work/drift.diff"; }
check "the committed deploy/cluster/hosts/ is render.sh's output with production values" drift
left() { ! grep -rv '^[[:space:]]*#' "$work"/conf/{db,app}? | grep -q '10\.0\.0\.\|/var/lib/postgresql\|/etc/flagserver'; }
check "no production address or path is left in the loopback rendering of the database and flagserver hosts" left

make_secrets

# flagserver.service's PostgreSQL drop-in restarts flagserver until the database answers: it must exit, not hang.
no_database() {
    local code started_at
    started_at=$(now)
    timeout 60 env FLAGSERVER_DATABASE="postgresql://flagserver@127.0.0.1:$pg1/flags?connect_timeout=2" \
        "$FLAGSERVER_BIN" --port 0 > /dev/null 2> "$work/no-database.err" < /dev/null
    code=$?
    echo "  exit $code after $(since "$started_at") s: $(head -c 160 "$work/no-database.err")"
    [[ $code == 1 ]]
}
check "flagserver exits with status 1 when no database host answers at start" no_database

# ---- etcd (one member here; three in production) ----
mapfile -t etcd_env < <(env_of "$work/conf/db1/etcd.env")
setsid env "${etcd_env[@]}" etcd > "$work/etcd.log" 2>&1 < /dev/null &
etcd_pid=$!
etcd_up() {
    local i
    for ((i = 0; i < 300; i++)); do
        curl -sf --max-time 2 "http://127.0.0.1:$etcd_client/health" 2>/dev/null | grep -q '"health":"true"' && return 0
        kill -0 "$etcd_pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
check "etcd answers /health on 127.0.0.1:$etcd_client" etcd_up

# ---- three Patroni nodes ----

started=$(now)
for node in 1 2 3; do start_patroni "$node"; done
if wait_for 150 healthy > /dev/null; then
    pass "Patroni bootstrapped the cluster: a leader, a synchronous standby and a replica ($(members | tr '\n' ';'))"
    timing "bootstrap: three nodes, leader + synchronous standby + replica running $(since "$started") s after start"
else
    fail "Patroni did not bring up a leader, a synchronous standby and a replica in 150 s ($(members | tr '\n' ';'))"
    finish
fi
first=$(leader)
first_node=$(node_of "$first")
check "synchronous_commit is on at the primary ($first)" test "$(psql_on "$first_node" -c 'SHOW synchronous_commit')" = on
sync_names=$(psql_on "$first_node" -c 'SHOW synchronous_standby_names')
sync_member=$(members | awk '$2 == "sync_standby" { print $1 }')
check "Patroni made $sync_member the synchronous standby (synchronous_standby_names = $sync_names)" \
    grep -q "$sync_member" <<<"$sync_names"
retry_interval=$(psql_on "$(node_of "$sync_member")" -c 'SHOW wal_retrieve_retry_interval')
check "the synchronous standby retries reading WAL every 200ms, not PostgreSQL's 5 s (wal_retrieve_retry_interval = $retry_interval)" \
    test "$retry_interval" = 200ms
check "the bootstrap hook made the flagserver role and its database flags" \
    test "$(psql_on "$first_node" -c "SELECT datdba::regrole FROM pg_database WHERE datname = 'flags'")" = flagserver

# ---- two flagserver nodes, started together on the empty database ----
listening() { grep -q "listening on http://127.0.0.1:${app_ports[$1 - 1]}" "$work/app$1.out"; }
setsid python3 "$repo/deploy/testing/tcp-relay.py" "$work/relay.cut" "$relay1:$pg1" "$relay2:$pg2" "$relay3:$pg3" \
    > "$work/relay.out" 2>&1 < /dev/null &
relay_pid=$!
relaying() { grep -q relaying "$work/relay.out"; }
waits 20 relaying
# Node 3 also runs as flagserver.service would confine it on a PostgreSQL host: under systemd's
# MemoryDenyWriteExecute seccomp rule (deploy/testing/mdwe-exec.c) and traced, to compare its system calls and
# socket families with the unit's SystemCallFilter and RestrictAddressFamilies (checked after step 4).
tracer=()
if command -v strace > /dev/null && command -v gcc > /dev/null && command -v systemd-analyze > /dev/null && [[ $(uname -m) == x86_64 ]] &&
    gcc -O2 -Wall -Wextra -Werror -o "$work/bin/mdwe-exec" "$repo/deploy/testing/mdwe-exec.c" 2> "$work/gcc.log"; then
    tracer=(strace -f -qq -o "$work/app3.strace" "$work/bin/mdwe-exec")
fi
start_app 1
start_app 2
start_app 3 "$work/conf-relayed" "${tracer[@]}"
all_listening() { listening 1 && listening 2 && listening 3; }
check "three flagserver nodes started together on the multi-host URI" waits 60 all_listening
base=http://127.0.0.1
node_get() { # node path: body on stdout (direct to the node, not through nginx)
    curl -sf --max-time 5 "$base:${app_ports[$1 - 1]}$2"
}
node_version() { node_get "$1" /v1/environments/production/document | json 'v["version"]'; }
readyz_code() { curl -s --max-time 10 "$base:${app_ports[$1 - 1]}/readyz" | json 'v.get("error", {}).get("code", v["status"])'; }
uri=$(env_of "$work/conf/app1/flagserver.env" | sed -n 's/^FLAGSERVER_DATABASE=//p')
token=$(env PGPASSFILE="$work/pgpass" FLAGSERVER_DATABASE="$uri" "$FLAGSERVER_BIN" token create --name ops --role writer \
    2> "$work/token.err" | grep -m1 -o 'sfl_[A-Za-z0-9_-]*')
check "flagserver token create works against the URI" test -n "$token"
seeded=$(node_get 1 '/v1/environments/production/versions?limit=10' | json '[x["version"] for x in v["versions"]]')
check "three nodes starting at once seeded production once (versions $seeded)" test "$seeded" = "[1]"

# ---- nginx in front, the shipped template with every node as an upstream ----
start_front "127.0.0.1:$app1,127.0.0.1:$app2,127.0.0.1:$app3" "$https_port" "$http_port"
check "the rendered nginx config has the three nodes as upstreams" \
    test "$(grep -c "server 127.0.0.1:\($app1\|$app2\|$app3\) max_fails=1" "$work/nginx/conf/flagserver.conf")" = 3
front_curl() { curl -sS --max-time 10 --cacert "$tls/cert.pem" "$@"; }
front_up() { front_curl -sf -o /dev/null "$front/healthz" 2>/dev/null; }
check "nginx proxies /healthz over HTTPS" waits 30 front_up

# ---- 1. a flip through nginx reaches every node and an event stream through nginx ----
front_curl -sN --max-time 300 "$front/v1/environments/production/events" > "$work/stream.txt" 2>/dev/null &
stream_pid=$!
stream_open() { grep -q '^retry:' "$work/stream.txt"; }
check "an event stream through nginx opened" waits 10 stream_open
answer=$(put_flag "$front" "flip through nginx" --cacert "$tls/cert.pem")
flip_version=$(json 'v["version"]' <<<"${answer#* }")
check "a flip through nginx: 200, version ${flip_version:-none}" test "${answer%% *}" = 200 -a -n "$flip_version"
at_version() { [[ $(node_version "$1") == "$2" ]]; }
for node in 1 2 3; do
    if took=$(wait_for 5 at_version "$node" "$flip_version"); then
        pass "node $node serves version $flip_version ${took} s after the PUT's answer"
    else
        fail "node $node does not serve version $flip_version within 5 s ($(node_version "$node"))"
    fi
done
announced() { grep -q "^id: $flip_version\$" "$work/stream.txt"; }
if took=$(wait_for 5 announced); then pass "the event stream through nginx announced version $flip_version (${took} s)"
else fail "the event stream through nginx did not announce $flip_version ($(tail -c 300 "$work/stream.txt" | tr '\n' '|'))"; fi
kill "$stream_pid" 2>/dev/null; wait "$stream_pid" 2>/dev/null

# ---- the probe: reads and writes through nginx from here to the end ----
setsid python3 "$repo/deploy/testing/failover-probe.py" "$front" "$tls/cert.pem" "$token" "$work" "$work/probe.stop" \
    > "$work/probe.out" 2>&1 < /dev/null &
probe_pid=$!
acks_after() { awk -v t="$1" '$3 == 200 && $1 > t' "$work/writes.log" 2>/dev/null | wc -l; }
wait_acks() { (($(acks_after "$1") >= ${2:-1})); }
reads_after() { awk -v t="$1" '$1 > t' "$work/reads.log" 2>/dev/null | wc -l; }
wait_reads() { (($(reads_after "$1") >= $2)); }
probe_start=$(now)
check "the probe's writes are acknowledged through nginx" waits 30 wait_acks "$probe_start" 5
# failed_reads FROM [TO]: reads through nginx that got no 200 in that window
failed_reads() { awk -v a="$1" -v b="${2:-9e12}" '$1 >= a && $1 <= b && $3 != 200' "$work/reads.log" | wc -l; }
write_codes() { # FROM TO: "STATUS CODE xCOUNT" of the refused writes sent in that window
    awk -v a="$1" -v b="$2" '$1 >= a && $1 <= b && $3 != 200 { n[$3 " " $6]++ } END { for (k in n) printf "%s x%d; ", k, n[k] }' "$work/writes.log"
}

# ---- 2. the database is slow: a lock held on the versions table for 12 s ----
# Every session of flagserver has lock_timeout 5 s; a write waits for the lock at most that long per statement.
primary=$(leader)
primary_node=$(node_of "$primary")
hold=12
slow_start=$(now)
psql_on "$primary_node" -c "BEGIN; LOCK TABLE versions IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep($hold); COMMIT;" > /dev/null 2>&1 &
lock_pid=$!
locked() { [[ $(psql_on "$primary_node" -c "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'versions' AND l.mode = 'AccessExclusiveLock' AND l.granted") == 1 ]]; }
waits 10 locked
put_started=$(now)
answer=$(put_flag "$base:$app1" "while the database is slow")
put_took=$(since "$put_started")
slow_answer="${answer%% *} $(json 'v["error"]["code"]' <<<"${answer#* }")"
readyz=$(readyz_code 1)
wait "$lock_pid"
slow_end=$(now)
check "a write while the lock is held ${hold} s is answered within $((hold + 5)) s (${put_took} s: $slow_answer)" \
    awk -v t="$put_took" -v l="$((hold + 5))" 'BEGIN { exit !(t < l) }'
refused_took=$(awk -v a="$slow_start" -v b="$slow_end" '$1 >= a && $1 <= b && $3 != 200 { printf "%s after %.1f s; ", $3 " " $6, $2 - $1 }' "$work/writes.log")
timing "database slow (versions locked ${hold} s; lock_timeout 5 s): a write on node 1 answered after ${put_took} s: ${slow_answer}; /readyz meanwhile ${readyz}; probe writes refused meanwhile: ${refused_took:-none}"
check "reads through nginx never failed while the database was slow" test "$(failed_reads "$slow_start" "$slow_end")" = 0
check "writes are acknowledged again after the lock is gone" waits 20 wait_acks "$slow_end" 2

# ---- 3. node 3 loses the database (its relays cut), nodes 1 and 2 keep it ----
lost_start=$(now)
touch "$work/relay.cut"
lost_readyz() { [[ $(readyz_code 3) == database_unavailable ]]; }
if took=$(wait_for 15 lost_readyz); then pass "node 3's /readyz says 503 degraded, database_unavailable (${took} s after the cut)"
else fail "node 3's /readyz does not report database_unavailable ($(readyz_code 3))"; fi
answer=$(put_flag "$base:$app3" "node 3 cut off")
check "a write on node 3 is refused: ${answer%% *} $(json 'v["error"]["code"]' <<<"${answer#* }")" \
    test "${answer%% *} $(json 'v["error"]["code"]' <<<"${answer#* }")" = "503 database_unavailable"
answer=$(put_flag "$base:$app1" "node 1 still writes")
lost_version=$(json 'v["version"]' <<<"${answer#* }")
check "node 1 still writes: ${answer%% *} (version ${lost_version:-none})" test "${answer%% *}" = 200
before=$(node_version 3)
check "node 3 still serves reads from memory (version $before, stale: node 1 is at $lost_version)" \
    test -n "$before" -a "${before:-0}" -lt "${lost_version:-0}"
lost_reads=$(failed_reads "$lost_start")
rm -f "$work/relay.cut"
back=$(now)
caught_up() { (($(node_version 3) >= lost_version)); }
if took=$(wait_for 15 caught_up); then
    pass "node 3 caught up with version $lost_version ${took} s after its database came back"
    timing "a node loses the database: its /readyz 503 database_unavailable, its writes 503 database_unavailable, its reads served but stale; probe writes through nginx meanwhile: $(write_codes "$lost_start" "$back")caught up ${took} s after reconnecting"
else
    fail "node 3 did not catch up with version $lost_version within 15 s ($(node_version 3))"
fi
# A write without If-Match that other nodes overtake eight times in a row is answered 503 busy: try again.
for try in 1 2 3 4 5; do
    answer=$(put_flag "$base:$app3" "node 3 is back $try")
    [[ ${answer%% *} == 503 && $(json 'v["error"]["code"]' <<<"${answer#* }") == busy ]] || break
done
check "node 3 writes again without a restart: ${answer%% *} (attempt $try)" test "${answer%% *}" = 200
check "reads through nginx never failed while node 3 was cut off ($lost_reads)" test "$lost_reads" = 0

# ---- 4. a flagserver node dies: nginx keeps answering ----
app_killed=$(now)
kill -KILL -- "-${app_pids[2]}" 2>/dev/null
{ wait "${app_pids[2]}"; } 2>/dev/null
app_pids[2]=''
# 12 s: longer than the upstream's fail_timeout (10 s), after which nginx tries the dead node again.
after_node_death() {
    wait_acks "$app_killed" 20 && wait_reads "$app_killed" 100 &&
        awk -v a="$app_killed" -v b="$(now)" 'BEGIN { exit !(b - a > 12) }'
}
check "after node 3 died, the probe went on through nginx (12 s, at least 20 writes and 100 reads)" waits 60 after_node_death
node_dead_end=$(now)
check "no read failed through nginx after node 3 died ($(failed_reads "$app_killed"))" test "$(failed_reads "$app_killed")" = 0
# Writes answered after the kill, those in flight at that moment included.
refused=$(awk -v a="$app_killed" -v b="$node_dead_end" '$2 >= a && $2 <= b && $3 != 200 { n[$3 " " $6]++ } END { for (k in n) printf "%s x%d; ", k, n[k] }' "$work/writes.log")
check "no write failed through nginx after node 3 died, those in flight when it died included (${refused:-none})" test -z "$refused"
timing "a flagserver node killed (SIGKILL): reads through nginx failed $(failed_reads "$app_killed"), writes refused: ${refused:-none}"
if ((${#tracer[@]} > 0)); then
    # From flagserver's execve on (the lines before are mdwe-exec's own).
    sed -n '/execve(".*flagserver"/,$p' "$work/app3.strace" | sed -E 's/^[0-9]+ +//' > "$work/app3-only.strace"
    grep -oE '^[a-z_0-9]+\(' "$work/app3-only.strace" | tr -d '(' | sort -u > "$work/app3.calls"
    outside=$(comm -23 "$work/app3.calls" <(python3 "$repo/deploy/testing/syscall-allow-list.py" "$repo/deploy/systemd/flagserver.service" | sort -u) | tr '\n' ' ')
    check "node 3 on PostgreSQL under the MemoryDenyWriteExecute rule: its $(wc -l < "$work/app3.calls") distinct system calls (start, seeding, reads, flips, the database lost and back) are allowed by flagserver.service's SystemCallFilter${outside:+ (outside: $outside)}" \
        test -s "$work/app3.calls" -a -z "$outside"
    families=$(grep -oE '^socket\(AF_[A-Z0-9]+' "$work/app3-only.strace" | cut -d'(' -f2 | sort -u | tr '\n' ' ')
    check "  ... and it opened only sockets flagserver.service's RestrictAddressFamilies allows (${families:-none})" \
        test -z "$(tr ' ' '\n' <<<"$families" | grep -vxE 'AF_INET|AF_INET6|AF_UNIX|')" -a -n "$families"
else
    skip "strace, gcc or systemd-analyze missing (or not x86-64): node 3's system calls not compared with flagserver.service"
fi

# ---- 5. the primary's host dies: Patroni and PostgreSQL killed at once ----
old=$(leader)
old_node=$(node_of "$old")
survivors=()
for node in 1 2 3; do ((node == old_node)) || survivors+=("${api_urls[node - 1]}"); done
sync_before=$(members | awk '$2 == "sync_standby" { print $1 }')
( while :; do printf '%s %s\n' "$(now)" "$(readyz_code 1)"; sleep 0.5; done ) > "$work/readyz.log" 2>/dev/null &
readyz_pid=$!
# An app listening through nginx while the primary dies: the stream stays open and announces the first flip after.
front_curl -sN --max-time 300 "$front/v1/environments/production/events" > "$work/failover-stream.txt" 2>/dev/null &
stream_pid=$!
stream_open() { grep -q '^retry:' "$work/failover-stream.txt"; }
waits 10 stream_open
kill -KILL -- "-${patroni_pids[old_node - 1]}" 2>/dev/null
kill_postgres "$old_node"
kill_at=$(now)   # from here on nothing of the old primary runs: a write acknowledged later was committed elsewhere
{ wait "${patroni_pids[old_node - 1]}"; } 2>/dev/null
patroni_pids[old_node - 1]=''
await_promotion "$old's host died" "$sync_before" || finish
failover_took=$promoted_after
# gap FROM: seconds between the last acknowledgement answered before FROM and the first sent after it
gap() {
    awk -v t="$1" '$3 == 200 && $2 <= t { last = $2 } $3 == 200 && $1 > t { printf "%.1f", $2 - last; exit }' "$work/writes.log"
}
if waits 120 wait_acks "$kill_at" 1; then
    resumed=$(awk -v t="$kill_at" '$3 == 200 && $1 > t { print $2; exit }' "$work/writes.log")
    pass "writes through nginx resumed without restarting flagserver: none acknowledged for $(gap "$kill_at") s"
    timing "primary host killed (SIGKILL to Patroni and PostgreSQL): new leader after ${failover_took} s; writes through nginx: none acknowledged for $(gap "$kill_at") s (refused meanwhile: $(write_codes "$kill_at" "$resumed")); reads failed: $(failed_reads "$kill_at" "$resumed")"
else
    fail "no write acknowledged within 120 s after the primary's host died ($(tail -n 3 "$work/writes.log" | tr '\n' ';'))"
fi
ready_again() { [[ $(tail -n1 "$work/readyz.log" | cut -d' ' -f2) == ready ]]; }
waits 30 ready_again
kill "$readyz_pid" 2>/dev/null; wait "$readyz_pid" 2>/dev/null; readyz_pid=''
readyz_seen=$(awk -v t="$kill_at" '$1 > t { print $2 }' "$work/readyz.log" | uniq | tr '\n' ' ')
check "node 1's /readyz during the failover went degraded (database_unavailable) and back to ready ($readyz_seen)" \
    grep -q 'database_unavailable.*ready' <<<"$readyz_seen"
check "reads through nginx never failed during the failover" test "$(failed_reads "$kill_at")" = 0
first_version=$(awk -v t="$kill_at" '$3 == 200 && $1 > t { print $4; exit }' "$work/writes.log")
# A node announces the version it installs: when it catches up with several at once, only the newest.
announced_after() { awk -v v="${first_version:-999999999}" -F': ' '$1 == "id" && $2 + 0 >= v { found = 1 } END { exit !found }' "$work/failover-stream.txt"; }
check "an event stream through nginx opened before the failover announced the flips after it (version ${first_version:-none} or newer)" \
    waits 10 announced_after
kill "$stream_pid" 2>/dev/null; wait "$stream_pid" 2>/dev/null
curl -s --max-time 5 "$base:$app1/metrics" > "$work/metrics.txt"
refused_metric=$(grep -E '^flagserver_requests_total\{.*status="503"\} [0-9]+' "$work/metrics.txt" | grep -o 'route="[^"]*".* [0-9]*$' | tr '\n' ' ')
check "node 1's /metrics counts its refused writes: ${refused_metric:-none}; $(grep -h 'publishes_total{outcome="failed"}' "$work/metrics.txt")" \
    grep -qE '^flagserver_requests_total\{.*status="503"\} [1-9]' "$work/metrics.txt"
start_patroni "$old_node"
rejoined() { members | awk -v n="$old" '$1 == n && ($2 == "replica" || $2 == "sync_standby") && ($3 == "running" || $3 == "streaming")' | grep -q .; }
if took=$(wait_for 120 rejoined); then
    pass "the old primary $old, started again, rejoined as a replica after ${took} s ($(members | tr '\n' ';'))"
    timing "old primary started again: a replica of the new timeline after ${took} s"
else
    fail "the old primary $old did not rejoin as a replica within 120 s ($(members | tr '\n' ';'))"
fi
check "the cluster is whole again: a leader, a synchronous standby and a replica" waits 60 healthy

# ---- 6. a planned switchover with patronictl ----
current=$(leader)
candidate=$(members | awk '$2 == "sync_standby" { print $1 }')
switch_at=$(now)
"${as_pg[@]}" env "${patroni_env[@]}" patronictl -c "$work/conf/db1/patroni.yml" switchover \
    --leader "$current" --candidate "$candidate" --force > "$work/switchover.log" 2>&1
switched() { [[ $(leader) == "$candidate" ]]; }
if took=$(wait_for 60 switched); then
    switched_at=$(now)
    pass "patronictl switchover made $candidate the leader (${took} s after the command returned)"
    # The writes' longest pause from the command on, once one sent after the new leader was seen is acknowledged.
    if waits 60 wait_acks "$switched_at" 1; then
        resumed=$(awk -v t="$switched_at" '$3 == 200 && $1 > t { print $2; exit }' "$work/writes.log")
        longest=$(awk -v a="$switch_at" -v b="$resumed" '$3 == 200 && $2 <= b { if ($2 > a && $2 - p > m) m = $2 - p; p = $2 } END { printf "%.1f", m }' "$work/writes.log")
        pass "writes through nginx resumed after the switchover (longest pause ${longest} s)"
        timing "planned switchover (patronictl switchover $current -> $candidate): writes through nginx paused ${longest} s at most (refused meanwhile: $(write_codes "$switch_at" "$resumed")); reads failed: $(failed_reads "$switch_at" "$resumed")"
    else
        fail "no write acknowledged within 60 s of the switchover"
    fi
else
    fail "patronictl switchover did not make $candidate the leader in 60 s ($(tail -n 3 "$work/switchover.log" | tr '\n' ' '))"
fi
check "reads through nginx never failed during the switchover" test "$(failed_reads "$switch_at")" = 0

# ---- 7. every acknowledged version is in the history, with its hash, without gaps ----
touch "$work/probe.stop"
wait "$probe_pid" 2>/dev/null
probe_pid=''
front_curl -sf -H "Authorization: Bearer $token" "$front/v1/environments/production/versions?limit=1000" > "$work/history.json" 2>/dev/null
history_pages() { # follows "next" through nginx; one "VERSION HASH" line per version
    local page=$work/history.json next
    while :; do
        json '"\n".join("%d %s" % (x["version"], x["contentHash"]) for x in v["versions"])' < "$page"
        next=$(json 'v["next"] or ""' < "$page")
        [[ -n $next ]] || break
        front_curl -sf -H "Authorization: Bearer $token" "$front$next" > "$work/history-next.json" || break
        mv "$work/history-next.json" "$page"
    done
}
history_pages | sort -n > "$work/history.txt"
awk '$3 == 200 { print $4, $5 }' "$work/writes.log" | sort -u > "$work/acked.txt"
acked=$(wc -l < "$work/acked.txt")
missing_acks=$(comm -23 "$work/acked.txt" <(sort "$work/history.txt") | wc -l)
check "every one of the $acked versions acknowledged through nginx is in the history with its hash ($missing_acks missing)" \
    test "$acked" -gt 50 -a "$missing_acks" = 0
newest=$(tail -n1 "$work/history.txt" | cut -d' ' -f1)
check "the history is 1..$newest without a gap or a double ($(wc -l < "$work/history.txt") versions, at least the $acked acknowledged)" \
    test "${newest:-0}" -ge "$acked" -a "$(cut -d' ' -f1 "$work/history.txt" | tr '\n' ' ')" = "$(seq 1 "${newest:-0}" | tr '\n' ' ')"
check "reads through nginx never failed during the whole run ($(wc -l < "$work/reads.log") reads)" test "$(failed_reads 0)" = 0

timing "the probe through nginx: $(wc -l < "$work/reads.log") reads, none failed; writes: $(awk '{ n[$3 " " ($3 == 200 ? "acknowledged" : $6)]++ } END { for (k in n) printf "%s x%d; ", k, n[k] }' "$work/writes.log")"
print_timings
finish
