#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run from traps and through check() look unreachable to shellcheck
# The PostgreSQL layout of docs/deploy.md under network partitions, in network namespaces on this machine: three
# database hosts (etcd member + Patroni + PostgreSQL 15 each, as in production: three etcd members, a real majority),
# three flagserver hosts with two links each (the front network to nginx, the back network to the database hosts),
# nginx in this namespace in front. Every config is rendered from the shipped templates (deploy/cluster/render.sh,
# deploy/nginx/render-conf.sh) with only addresses and paths changed. This kernel has no netem: a partition is a link
# taken down (packets silently lost, as when a switch port dies) or, between two hosts of one network, each one's
# neighbour entry for the other pointed at a MAC address nobody has (silently lost both ways). A probe reads every node
# directly and through nginx, and writes directly and through nginx, from start to end
# (deploy/testing/history-probe.py), while:
#   A. flagserver node 3 loses the database (its back link down): it serves its last version and says how old it is
#      (Flagserver-Database-Unreachable-Seconds, flagserver_database_unreachable_seconds), /readyz turns 503, its
#      writes answer 503 within a bound, and it catches up when the link returns;
#   B. flagserver node 2 stopped (SIGSTOP) for 20 s while the others write, then continued;
#   C. the primary cut off from its synchronous standby: Patroni makes the other replica synchronous; every version
#      acknowledged meanwhile is on two PostgreSQL nodes;
#   D. the primary's PostgreSQL stopped (SIGSTOP, postmaster and backends) for 15 s: writes end with 503 within a
#      bound, the nodes' sync rounds do not hang, and writes resume after SIGCONT (needs flagserver's client-side
#      PostgreSQL deadline);
#   E. the primary cut off from etcd's majority (and both standbys): it demotes itself, Patroni promotes the
#      synchronous standby, never two primaries; the old one rejoins after healing as a replica of the new one,
#      keeping what the new one acknowledged (last: Debian 12's Patroni 3.0.2 fails it, see docs/deploy.md);
# then, healed, every PostgreSQL node holds the same versions, and deploy/testing/history-check.py checks every
# request against them (every acknowledged version kept with its hash, no number assigned twice, no node's reads going
# backwards, a node's reads seeing its own acknowledgements). Prints TIMING lines and the checker's figures.
# Needs root (network namespaces), iproute2, FLAGSERVER_BIN, patroni, etcd, nginx, PostgreSQL's binaries (skips
# naming what is missing). Never touches the machine's own PostgreSQL or ports: every server listens inside its
# namespace, nginx on a free loopback port. Removes every namespace, link and process it made, also on failure.
# Environment: PG_BIN (default: newest /usr/lib/postgresql/*/bin), TEST_TIMEOUT (900 s), KEEP_WORK=1.
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=testing/cluster-lib.sh
source "$repo/deploy/testing/cluster-lib.sh"
TEST_TIMEOUT=${TEST_TIMEOUT:-900}

# The checker first: it needs nothing but Python.
if selftest=$(python3 "$repo/deploy/testing/history-check-test.py" 2>&1); then
    pass "the history checker's self-test: a good history passes, each rule catches its broken one ($(tail -n 3 <<<"$selftest" | head -n1))"
else
    fail "the history checker's self-test: $(tail -n 20 <<<"$selftest")"
fi

missing_for_cluster ip setpriv
[[ $(id -u) == 0 ]] || missing+=("root (network namespaces)")
id postgres > /dev/null 2>&1 || missing+=("the postgres user (Debian's postgresql package makes it)")
if ((${#missing[@]} > 0)); then
    skip "the partitions need: ${missing[*]} (deploy/test-all.sh installs the packages as root)"
    finish
fi
# 10.213.1.0/24 front, 10.213.2.0/24 back: refused if this machine already routes them elsewhere.
if ip route show | grep -q '^10\.213\.\|^10\.0\.0\.0/8\|^10\.213\.0\.0/16'; then
    skip "10.213.1.0/24 or 10.213.2.0/24 is already routed here ($(ip route show | grep '^10\.' | head -n2 | tr '\n' ';'))"
    finish
fi
tag=$(($$ % 10000))
if ! ip netns add "sp$tag-probe" 2> /dev/null; then
    skip "ip netns add fails here (no network namespaces)"
    finish
fi
ip netns del "sp$tag-probe"

work=$(mktemp -d /tmp/partitions-test.XXXXXX)
chmod 755 "$work"   # the postgres user and nginx's workers (nobody) reach their directories below
as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups)
etcd_pids=('' '' '') nginx_pid='' probe_pid='' watchdog_pid=''
hosts=(db1 db2 db3 app1 app2 app3)
front_bridge=sp${tag}f back_bridge=sp${tag}b
cleanup() {
    trap - EXIT INT TERM
    touch "$work/probe.stop"
    stop_pid "$probe_pid"; stop_pid "$nginx_pid"
    # A stopped process takes SIGTERM only once continued.
    for pid in "${app_pids[@]}"; do [[ -n $pid ]] && kill -CONT "$pid" 2>/dev/null; done
    stop_cluster
    for pid in "${etcd_pids[@]}"; do stop_pid "$pid"; done
    for host in "${hosts[@]}"; do ip netns del "sp$tag-$host" 2>/dev/null; done
    ip link del "$front_bridge" 2>/dev/null; ip link del "$back_bridge" 2>/dev/null
    [[ -n $watchdog_pid ]] && kill "$watchdog_pid" 2>/dev/null && wait "$watchdog_pid" 2>/dev/null
    ((failed > 0)) && tail_logs "$work"/db?/patroni.log "$work"/app?.err "$work"/etcd?.log "$work/nginx/logs/error.log"
    if [[ ${KEEP_WORK:-} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'fail "interrupted or timed out"; exit 1' INT TERM
start_watchdog test-partitions.sh

# ---- the networks: two bridges here, a namespace per host, a veth pair per link ----
front_net=10.213.1 back_net=10.213.2
db_addresses=("$back_net.11" "$back_net.12" "$back_net.13")
app_front=("$front_net.21" "$front_net.22" "$front_net.23") app_back=("$back_net.21" "$back_net.22" "$back_net.23")
link_of() { echo "sp$tag${1:0:1}${1: -1}$2"; } # host net(f|b): this side's end of the host's link (<= 15 characters)
network() {
    local host bridge net
    for bridge in "$front_bridge" "$back_bridge"; do ip link add "$bridge" type bridge && ip link set "$bridge" up || return 1; done
    ip addr add "$front_net.1/24" dev "$front_bridge" && ip addr add "$back_net.1/24" dev "$back_bridge" || return 1
    for host in "${hosts[@]}"; do
        host_netns[$host]=sp$tag-$host
        ip netns add "sp$tag-$host" && ip -n "sp$tag-$host" link set lo up || return 1
    done
    attach() { # host net(f|b) address
        local end
        end=$(link_of "$1" "$2")
        ip link add "$end" type veth peer name "${end}x" && ip link set "${end}x" netns "sp$tag-$1" &&
            ip -n "sp$tag-$1" link set "${end}x" name "eth$2" && ip -n "sp$tag-$1" addr add "$3/24" dev "eth$2" &&
            ip -n "sp$tag-$1" link set "eth$2" up &&
            ip link set "$end" master "$([[ $2 == f ]] && echo "$front_bridge" || echo "$back_bridge")" && ip link set "$end" up
    }
    for net in 1 2 3; do
        attach "db$net" b "${db_addresses[net - 1]}" && attach "app$net" f "${app_front[net - 1]}" &&
            attach "app$net" b "${app_back[net - 1]}" || return 1
    done
}
check "two networks, six hosts: namespaces sp$tag-{db1..3,app1..3}, bridges $front_bridge and $back_bridge" network
reach() { # host address: a TCP connect from the host to the address's port 9 gets an answer (refused = reachable)
    ip netns exec "sp$tag-$1" python3 -c '
import socket, sys
s = socket.socket(); s.settimeout(1)
try: s.connect((sys.argv[1], 9))
except ConnectionRefusedError: sys.exit(0)
except OSError: sys.exit(1)' "$2"
}
connected() { reach app3 "${db_addresses[0]}" && reach db1 "${db_addresses[2]}"; }
check "app3 reaches db1 over the back network, db1 reaches db3" waits 10 connected
# partition HOST_A HOST_B / reconnect HOST_A HOST_B: each one's neighbour entry for the other pointed at a MAC nobody has, or
# forgotten (ARP resolves it again): their packets to each other are lost silently, everyone else's arrive.
partition() { ip -n "sp$tag-$1" neigh replace "$(back_address "$2")" lladdr 02:00:00:00:00:00 nud permanent dev ethb &&
        ip -n "sp$tag-$2" neigh replace "$(back_address "$1")" lladdr 02:00:00:00:00:00 nud permanent dev ethb; }
reconnect() { ip -n "sp$tag-$1" neigh del "$(back_address "$2")" dev ethb; ip -n "sp$tag-$2" neigh del "$(back_address "$1")" dev ethb; }
back_address() { if [[ $1 == db* ]]; then echo "${db_addresses[${1#db} - 1]}"; else echo "${app_back[${1#app} - 1]}"; fi; }

# ---- the configuration, rendered from the shipped templates ----
mkdir -p "$work/bin" "$work/http"
for node in 1 2 3; do mkdir -p "$work/db$node/log" "$work/etcd$node"; done
chown -R postgres "$work"/db?
chmod 700 "$work"/db?
cp "$repo/deploy/cluster/patroni-post-bootstrap" "$work/bin/"
"$repo/deploy/cluster/render.sh" "DB_ADDRESSES=${db_addresses[0]},${db_addresses[1]},${db_addresses[2]}" \
    DATA_DIRS="$work/db1/data,$work/db2/data,$work/db3/data" SOCKET_DIRS="$work/db1,$work/db2,$work/db3" \
    LOG_DIRS="$work/db1/log,$work/db2/log,$work/db3/log" PGPASS_FILES="$work/db1/pgpass,$work/db2/pgpass,$work/db3/pgpass" \
    BIN_DIR="$PG_BIN" POST_BOOTSTRAP="$work/bin/patroni-post-bootstrap" NETWORK="$back_net.0/24" \
    ETCD_DATA_DIRS="$work/etcd1,$work/etcd2,$work/etcd3" FRONT_ADDRESS="$front_net.1" FLAGS_DIR="$repo/flags" \
    "APP_ADDRESSES=${app_front[0]},${app_front[1]},${app_front[2]}" PGPASSFILE="$work/pgpass" "$work/conf" 2> "$work/render.err"
check "deploy/cluster/render.sh rendered the layout for the namespaces ($(cat "$work/render.err"))" test -s "$work/conf/app3/flagserver.env"
make_secrets
pg_ports=(5432 5432 5432)
api_urls=("http://${db_addresses[0]}:8008" "http://${db_addresses[1]}:8008" "http://${db_addresses[2]}:8008")

# ---- three etcd members, three Patroni nodes ----
for node in 1 2 3; do
    mapfile -t etcd_env < <(env_of "$work/conf/db$node/etcd.env")
    setsid ip netns exec "sp$tag-db$node" env "${etcd_env[@]}" etcd > "$work/etcd$node.log" 2>&1 < /dev/null &
    etcd_pids[node - 1]=$!
done
etcd_up() { local a; for a in "${db_addresses[@]}"; do curl -sf --max-time 2 "http://$a:2379/health" | grep -q '"health":"true"' || return 1; done; }
check "three etcd members answer /health" waits 60 etcd_up
started=$(now)
for node in 1 2 3; do start_patroni "$node"; done
if waits 150 healthy; then
    pass "Patroni bootstrapped the cluster: a leader, a synchronous standby and a replica ($(members | tr '\n' ';'))"
    timing "bootstrap: three etcd members and three Patroni nodes in namespaces, healthy $(since "$started") s after start"
else
    fail "Patroni did not bring up a leader, a synchronous standby and a replica in 150 s ($(members | tr '\n' ';'))"
    finish
fi

# ---- three flagserver nodes, nginx in front ----
for node in 1 2 3; do start_app "$node"; done
listening() { grep -q "listening on http://${app_front[$1 - 1]}:8080" "$work/app$1.out"; }
all_listening() { listening 1 && listening 2 && listening 3; }
check "three flagserver nodes started on the multi-host URI, each in its namespace" waits 60 all_listening
node_url() { echo "http://${app_front[$1 - 1]}:8080"; }
node_version() { curl -sf --max-time 5 "$(node_url "$1")/v1/environments/production/document" | json 'v["version"]'; }
readyz_code() { curl -s --max-time 10 "$(node_url "$1")/readyz" | json 'v.get("error", {}).get("code", v["status"])'; }
uri=$(env_of "$work/conf/app1/flagserver.env" | sed -n 's/^FLAGSERVER_DATABASE=//p')
token=$(ip netns exec "sp$tag-app1" env PGPASSFILE="$work/pgpass" FLAGSERVER_DATABASE="$uri" "$FLAGSERVER_BIN" token create \
    --name ops --role writer 2> "$work/token.err" | grep -m1 -o 'sfl_[A-Za-z0-9_-]*')
check "flagserver token create works against the URI from a flagserver host" test -n "$token"
read -r https_port http_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
start_front "${app_front[0]}:8080,${app_front[1]}:8080,${app_front[2]}:8080" "$https_port" "$http_port"
front_up() { curl -sf --max-time 5 --cacert "$tls/cert.pem" -o /dev/null "$front/healthz"; }
check "nginx proxies /healthz over HTTPS to the nodes on the front network" waits 30 front_up

# ---- the probe, from here to the end ----
events=$work/events.jsonl
: > "$events"
setsid python3 "$repo/deploy/testing/history-probe.py" "$events" "$work/probe.stop" "$token" "$tls/cert.pem" \
    "front=$front" "app1=$(node_url 1)" "app2=$(node_url 2)" "app3=$(node_url 3)" > "$work/probe.out" 2>&1 < /dev/null &
probe_pid=$!
# acks TARGET FROM: writes by TARGET (a node, front, or . for any) sent after FROM and acknowledged
acks() { grep '"op":"write"' "$events" | grep "\"target\":\"$1" | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if (e := json.loads(l))["status"] == 200 and e["start"] > float(sys.argv[1])))' "$2"; }
wait_acks() { (($(acks "$1" "$2") >= ${3:-1})); }
probe_start=$(now)
all_writing() { local t; for t in front app1 app2 app3; do wait_acks "$t" "$probe_start" 3 || return 1; done; }
check "the probe's writes are acknowledged on every node and through nginx" waits 30 all_writing
newest_acked() { python3 -c '
import json, sys
print(max((e["version"] for l in open(sys.argv[1]) if (e := json.loads(l))["op"] == "write" and e["status"] == 200), default=0))' "$events"; }
windows=()
window() { windows+=("$1:$2:$3"); }

# ---- A. flagserver node 3 loses the database: its back link down ----
a_start=$(now)
ip link set "$(link_of app3 b)" down
unready() { [[ $(readyz_code 3) == database_unavailable ]]; }
if took=$(wait_for 30 unready); then
    pass "node 3's /readyz turned 503 database_unavailable ${took} s after its link to the database went down"
    a_unready=$took
else
    fail "node 3's /readyz did not turn database_unavailable within 30 s ($(readyz_code 3))"
    a_unready=none
fi
header() { curl -s -D - -o /dev/null --max-time 5 "$(node_url 3)/v1/environments/production/document" | tr -d '\r' |
    sed -n 's/^Flagserver-Database-Unreachable-Seconds: //Ip'; }
unreachable_header() { [[ -n $(header) ]]; }
check "node 3's document GETs carry Flagserver-Database-Unreachable-Seconds ($(waits 30 unreachable_header; header) s)" \
    unreachable_header
metric() { curl -s --max-time 5 "$(node_url "$1")/metrics" | sed -n 's/^flagserver_database_unreachable_seconds //p'; }
check "node 3's /metrics: flagserver_database_unreachable_seconds $(metric 3) (> 0), node 1's $(metric 1)" \
    test "$(metric 3)" -gt 0 -a "$(metric 1)" = 0
put_started=$(now)
answer=$(put_flag "$(node_url 3)" "node 3 cut off")
put_took=$(since "$put_started")
refused_in_time() { [[ ${answer%% *} == 503 ]] && awk -v t="$put_took" 'BEGIN { exit !(t < 30) }'; }
check "a write on node 3 answers 503 within 30 s (${put_took} s: ${answer%% *} $(json 'v["error"]["code"]' <<<"${answer#* }"))" \
    refused_in_time
answer=$(put_flag "$(node_url 1)" "node 1 still writes")
check "node 1 still writes: ${answer%% *}" test "${answer%% *}" = 200
sleep 5
before_heal=$(newest_acked)
served=$(node_version 3)
check "node 3 still serves reads from memory (version ${served:-none}; acknowledged elsewhere: $before_heal)" \
    test -n "$served" -a "${served:-0}" -lt "$before_heal"
a_heal=$(now)
ip link set "$(link_of app3 b)" up
caught_up() { (($(node_version 3) >= before_heal)) && [[ -z $(header) ]]; }
if took=$(wait_for 60 caught_up); then
    pass "node 3 caught up with version $before_heal and dropped the header ${took} s after its link came back"
    a_caught=$took
else
    fail "node 3 did not catch up with $before_heal within 60 s ($(node_version 3), header $(header))"
    a_caught=none
fi
ready() { local node; for node in "$@"; do [[ $(readyz_code "$node") == ready ]] || return 1; done; }
check "node 3 is ready again" waits 30 ready 3
a_end=$(now)
# Writes through nginx meanwhile: those that reached node 3 went on to another node (location @put).
front_writes() { python3 -c '
import json, sys
a, b = float(sys.argv[2]), float(sys.argv[3])
w = [e for l in open(sys.argv[1]) if (e := json.loads(l))["op"] == "write" and e["target"] == "front" and a <= e["start"] <= b]
print(len(w), sum(1 for e in w if e["status"] == 200), sum(1 for e in w if e["code"] == "database_unavailable"),
      "%.1f" % max((e["end"] - e["start"] for e in w), default=0))' "$events" "$1" "$2"; }
read -r fw_count fw_acked fw_refused fw_longest < <(front_writes "$a_start" "$a_heal")
check "nginx routed writes around node 3: $fw_acked of $fw_count PUTs through it acknowledged, $fw_refused refused database_unavailable (longest ${fw_longest} s)" \
    test "${fw_refused:-1}" = 0 -a "${fw_acked:-0}" -gt 0
window A "$a_start" "$a_end"
timing "A. node 3 cut off from the database $(since "$a_start" "$a_heal") s: /readyz 503 after ${a_unready} s; a write on it answered 503 after ${put_took} s; caught up ${a_caught} s after the link returned"

# ---- B. flagserver node 2 stopped for 20 s while the others write ----
b_start=$(now)
kill -STOP "${app_pids[1]}"
sleep 20
before_cont=$(newest_acked)
kill -CONT "${app_pids[1]}"
b_cont=$(now)
caught_up2() { (($(node_version 2) >= before_cont)); }
if took=$(wait_for 30 caught_up2); then pass "node 2, continued after 20 s stopped, caught up with version $before_cont in ${took} s"; b_caught=$took
else fail "node 2 did not catch up with $before_cont within 30 s of SIGCONT ($(node_version 2))"; b_caught=none; fi
check "node 2 writes again after it was continued" waits 30 wait_acks app2 "$b_cont" 1
b_end=$(now)
window B "$b_start" "$b_end"
timing "B. node 2 stopped (SIGSTOP) 20 s: caught up ${b_caught} s after SIGCONT"

# ---- C. the primary cut off from its synchronous standby ----
c_start=$(now)
primary=$(leader) sync=$(members | awk '$2 == "sync_standby" { print $1 }')
other=$(members | awk '$2 == "replica" { print $1 }' | head -n1)
partition "$primary" "$sync"
resynced() { [[ $(members | awk '$2 == "sync_standby" { print $1 }') == "$other" ]]; }
if took=$(wait_for 120 resynced); then
    pass "Patroni made $other the synchronous standby ${took} s after $primary was cut off from $sync"
    c_swap=$took
else
    fail "Patroni did not make $other the synchronous standby within 120 s ($(members | tr '\n' ';'))"
    c_swap=none
fi
c_swapped=$(now)
check "writes are acknowledged while $sync is cut off" waits 60 wait_acks . "$c_swapped" 5
# Every version acknowledged from the cut until now, on every node that is running: on two of them at least.
on_nodes() {
    local node
    for node in 1 2 3; do
        psql_on "$node" -c "SELECT number || ' ' || content_hash FROM versions v JOIN environments e ON e.id = v.environment_id WHERE e.name = 'production' ORDER BY number" \
            > "$work/versions-db$node.txt" 2> /dev/null || : > "$work/versions-db$node.txt"
    done
}
acked_between() { python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["op"] == "write" and e["status"] == 200 and float(sys.argv[2]) < e["end"] < float(sys.argv[3]):
        print(e["version"], e["hash"])' "$events" "$1" "$2" | sort -u; }
# A standby applies what it flushed a moment later: the versions acknowledged until a second before the query.
c_mark=$(now)
sleep 1
on_nodes
acked_between "$c_start" "$c_mark" > "$work/acked-c.txt"
two_nodes() { awk 'FILENAME ~ /acked/ { if (have[$0] < 2) n++; next } { have[$0]++ } END { print n + 0 }' \
    "$work"/versions-db{1,2,3}.txt "$work/acked-c.txt"; }
check "each of the $(wc -l < "$work/acked-c.txt") versions acknowledged since the cut is on two PostgreSQL nodes ($(two_nodes) not)" \
    test "$(two_nodes)" = 0 -a -s "$work/acked-c.txt"
c_heal=$(now)
reconnect "$primary" "$sync"
check "healed: a leader, a synchronous standby and a replica again" waits 120 healthy
c_end=$(now)
window C "$c_start" "$c_end"
timing "C. $primary cut off from its synchronous standby $sync for $(since "$c_start" "$c_heal") s: $other synchronous after ${c_swap} s"

# ---- D. the primary's PostgreSQL stopped (SIGSTOP) for 15 s ----
d_start=$(now)
frozen=$(leader)
frozen_node=$(node_of "$frozen")
for node in 1 2 3; do wc -l < "$work/app$node.err" > "$work/app$node.err.mark"; done
kill_postgres "$frozen_node" STOP
sleep 15
d_cont=$(now)
kill_postgres "$frozen_node" CONT
# Writes sent while it was stopped: each answered within 10 s (a client-side deadline), the refused ones with 503.
late=$(python3 -c '
import json, sys
a, b = float(sys.argv[2]), float(sys.argv[3])
w = [e for l in open(sys.argv[1]) if (e := json.loads(l))["op"] == "write" and a <= e["start"] <= b - 10]
print(sum(1 for e in w if e["end"] - e["start"] > 10), len(w), sum(1 for e in w if e["status"] == 503))' "$events" "$d_start" "$d_cont")
read -r late_count late_of refused_503 <<<"$late"
check "writes sent while the primary's PostgreSQL was stopped were answered within 10 s ($late_count of $late_of later; $refused_503 answered 503)" \
    test "${late_count:-1}" = 0 -a "${refused_503:-0}" -gt 0
rounds_failed() { # node: the node's sync round logged a failure during the freeze (it did not hang in a read)
    tail -n "+$(($(cat "$work/app$1.err.mark") + 1))" "$work/app$1.err" | grep -qE 'catch_up_failed|cluster_sync_failed'
}
check "each node's sync round ended its reads with an error while PostgreSQL was stopped (not hung until SIGCONT)" \
    eval 'rounds_failed 1 && rounds_failed 2 && rounds_failed 3'
check "writes are acknowledged again after SIGCONT" waits 90 wait_acks . "$d_cont" 3
d_resumed=$(python3 -c '
import json, sys
print(min((e["end"] for l in open(sys.argv[1]) if (e := json.loads(l))["op"] == "write" and e["status"] == 200 and e["start"] > float(sys.argv[2])), default=0))' "$events" "$d_cont")
check "every node is ready again" waits 60 ready 1 2 3
check "the cluster is whole: a leader, a synchronous standby and a replica" waits 120 healthy
d_end=$(now)
window D "$d_start" "$d_end"
timing "D. $frozen's PostgreSQL stopped 15 s: writes answered within 10 s: $((late_of - late_count)) of $late_of ($refused_503 with 503); writes acknowledged again $(since "$d_cont" "$d_resumed") s after SIGCONT"

# ---- E. the primary cut off from etcd's majority (the other two database hosts) ----
e_start=$(now)
old=$(leader) sync=$(members | awk '$2 == "sync_standby" { print $1 }')
survivors=()
for node in 1 2 3; do [[ db$node == "$old" ]] || { survivors+=("${api_urls[node - 1]}"); partition "$old" "db$node"; }; done
old_node=$(node_of "$old")
recovering() { [[ $(psql_on "$old_node" -c 'SELECT pg_is_in_recovery()' 2> /dev/null) == t ]]; }
role_of_old() { case $(psql_on "$old_node" -c 'SELECT pg_is_in_recovery()' 2> /dev/null) in t) echo demoted ;; f) echo primary ;; *) echo down ;; esac; }
( while :; do printf '%s %s %s\n' "$(now)" "$(role_of_old)" "$(leader "${survivors[@]}")"; sleep 0.5; done ) \
    > "$work/roles-d.log" 2> /dev/null &
roles_pid=$!
await_promotion "$old lost etcd's majority" "$sync"
e_promoted=$promoted_after
check "$old demoted itself (read-only) while cut off" waits 60 recovering
e_demoted=$(awk '$2 == "demoted" { print $1; exit }' "$work/roles-d.log")
# Never two primaries: from the first sample that names the new leader on, the old one is read-only.
both=$(awk -v o="$old" '$3 != "" && $3 != o && $2 == "primary" { n++ } END { print n + 0 }' "$work/roles-d.log")
check "never two primaries: $old was read-only in every sample after $new led ($both samples with both)" test "$both" = 0
check "writes are acknowledged through the new primary while $old is cut off" waits 90 wait_acks . "$(now)" 3
sleep 5
e_heal=$(now)
for node in 1 2 3; do [[ db$node == "$old" ]] || reconnect "$old" "db$node"; done
kill "$roles_pid" 2> /dev/null; wait "$roles_pid" 2> /dev/null
rejoined() { members | awk -v n="$old" '$1 == n && ($2 == "replica" || $2 == "sync_standby") && ($3 == "running" || $3 == "streaming")' | grep -q .; }
if took=$(wait_for 150 rejoined); then pass "$old rejoined as a replica ${took} s after healing"; e_rejoined=$took
else fail "$old did not rejoin within 150 s ($(members | tr '\n' ';'))"; e_rejoined=none; fi
check "healed: a leader, a synchronous standby and a replica again" waits 120 healthy
# What the new primary acknowledged while the old one was cut off is still there (Patroni's documented promise).
acked_between "$e_start" "$e_heal" > "$work/acked-e.txt"
on_nodes
kept() { comm -23 "$work/acked-e.txt" <(sort "$work/versions-db$(node_of "$(leader)").txt") | wc -l; }
patroni_version=$(patroni --version 2> /dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1)
why=''
# Patroni before 3.0.3 puts the leader key without a comparison once its lease is renewed (patroni#2693): the old
# primary, healed, overwrites the new leader's key from its stale view and takes over, and the new one is rewound.
[[ $(kept) != 0 && $(printf '%s\n' "$patroni_version" 3.0.3 | sort -V | head -n1) != 3.0.3 ]] &&
    why=" (Patroni $patroni_version: before 3.0.3 the old leader's update_leader overwrites the new leader's key, patroni#2693)"
check "the $(wc -l < "$work/acked-e.txt") versions acknowledged while $old was cut off are all kept after healing ($(kept) lost; leader now $(leader))$why" \
    test "$(kept)" = 0
e_end=$(now)
window E "$e_start" "$e_end"
timing "E. $old cut off from etcd's majority: read-only after $(since "$e_start" "${e_demoted:-$e_start}") s, $new promoted after ${e_promoted} s; healed after $(since "$e_start" "$e_heal") s, $old rejoined ${e_rejoined} s after healing"

# ---- the end: every node holds the same versions, and the history holds every request ----
sleep 3
touch "$work/probe.stop"
wait "$probe_pid" 2> /dev/null
probe_pid=''
same() { on_nodes; cmp -s "$work/versions-db1.txt" "$work/versions-db2.txt" && cmp -s "$work/versions-db1.txt" "$work/versions-db3.txt" && test -s "$work/versions-db1.txt"; }
if waits 30 same; then pass "no split brain: the three PostgreSQL nodes hold the same $(wc -l < "$work/versions-db1.txt") versions"
else fail "the PostgreSQL nodes differ: $(wc -l "$work"/versions-db?.txt | head -n3 | tr '\n' ';')"; fi
# The final history: the leader's (the same as every node's when the check above passed).
final_node=$(node_of "$(leader)")
history_check() {
    python3 "$repo/deploy/testing/history-check.py" "$events" "$work/versions-db${final_node:-1}.txt" "${windows[@]}" > "$work/check.txt"
}
if history_check; then
    pass "the history checker: $(tail -n1 "$work/check.txt") in $(wc -l < "$events") requests"
else
    fail "the history checker: $(grep -m 5 VIOLATION "$work/check.txt" | tr '\n' ';') $(tail -n1 "$work/check.txt")"
fi
figure() { awk -v n="$1" '$1 == "FIGURE" && $2 == n { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$work/check.txt"; }
check "versions lost: $(figure versions_lost) of $(figure acknowledged) acknowledged" test "$(figure versions_lost)" = 0
timing "A. node 3 cut off: time to unready ${a_unready} s; its stale window $(figure app3_stale_window_seconds) s (reads with the header $(figure app3_unreachable_header_seconds) s); writes refused $(figure A_writes_503) (503) of $(figure A_writes); longest write $(figure A_longest_write_seconds) s"
timing "B. node 2 stopped: its stale window $(figure app2_stale_window_seconds) s; writes refused $(figure B_writes_refused); longest write $(figure B_longest_write_seconds) s"
for w in C D E; do
    timing "$w. writes $(figure "${w}_writes"), acknowledged $(figure "${w}_acknowledged"), refused $(figure "${w}_writes_refused"), longest $(figure "${w}_longest_write_seconds") s, versions lost $(figure "${w}_versions_lost")"
done
timing "whole run: $(figure requests) requests, $(figure acknowledged) writes acknowledged, $(figure writes_503) refused with 503 ($(figure writes_refused)), versions lost $(figure versions_lost)"
print_timings
finish
