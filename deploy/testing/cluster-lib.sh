# shellcheck shell=bash
# shellcheck disable=SC2034  # the counters and arrays are read by the scripts that source this file
# shellcheck disable=SC2154  # work, as_pg, api_urls, pg_ports, patroni_env, token: set by the sourcing script
# What deploy/test-patroni.sh (loopback) and deploy/test-partitions.sh (network namespaces) share: the result lines,
# waiting, process clean-up, and starting Patroni and flagserver on a host of the PostgreSQL layout. Sourced first;
# FLAGSERVER_BIN (or FLAGSERVER) and PG_BIN (default: the newest /usr/lib/postgresql/*/bin) come from the
# environment. Before calling the cluster functions the script sets work (its temp dir) and:
#   as_pg          the prefix that runs a command as the postgres user (empty when not root)
#   api_urls       every Patroni REST API's base URL; pg_ports: each node's PostgreSQL port
#   patroni_env    Patroni's secrets (NAME=value words; make_secrets)
#   host_netns     (associative) the network namespace of a host name (db1, app2, ...); none: this one
FLAGSERVER_BIN=${FLAGSERVER_BIN:-${FLAGSERVER:-}}
passed=0 failed=0 skipped=0
timings=()
declare -A host_netns=()
patroni_pids=('' '' '') app_pids=('' '' '')
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
finish() { echo "$passed passed, $failed failed, $skipped skipped"; ((failed == 0)); exit $?; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.1f", b - a }'; }
timing() { echo "TIMING $*"; timings+=("$*"); }
print_timings() {
    echo "-- timings (this machine, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
    printf '   %s\n' "${timings[@]}"
}
newest_pg_bin() { # the newest installed PostgreSQL's bin directory
    local initdb
    initdb=$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n1)
    echo "${initdb%/initdb}"
}
PG_BIN=${PG_BIN:-$(newest_pg_bin)}
start_watchdog() { # script-name: SIGTERM to this shell after TEST_TIMEOUT seconds (watchdog_pid)
    ( trap 'kill "$s" 2>/dev/null; exit 0' TERM; sleep "$TEST_TIMEOUT" & s=$!; wait "$s" &&
      { echo "$1: $TEST_TIMEOUT s limit reached" >&2; kill -TERM $$; } ) &
    watchdog_pid=$!
}
on_host() { # host: the words that run a command on that host (ip netns exec NS), one a line; nothing for this one
    [[ -n ${host_netns[$1]:-} ]] && printf '%s\n' ip netns exec "${host_netns[$1]}"
    return 0
}
kill_postgres() { # node [signal]: to its postmaster and every child (backends, walsender, ...); default SIGKILL
    local pidfile=$work/db$1/data/postmaster.pid postmaster
    [[ -s $pidfile ]] || return 0
    postmaster=$(head -n1 "$pidfile")
    [[ $postmaster =~ ^[0-9]+$ ]] || return 0
    # shellcheck disable=SC2046  # one pid per word
    kill "-${2:-KILL}" "$postmaster" $(ps -o pid= --ppid "$postmaster") 2>/dev/null
}
stop_pid() { # pid: SIGTERM to its process group (or itself), up to 10 s, then SIGKILL
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
stop_cluster() { # the flagserver nodes, then Patroni (so that it cannot start PostgreSQL again), then PostgreSQL
    local pid node
    for pid in "${app_pids[@]}"; do stop_pid "$pid"; done
    for pid in "${patroni_pids[@]}"; do [[ -n $pid ]] && kill -KILL -- "-$pid" 2>/dev/null; done
    for pid in "${patroni_pids[@]}"; do [[ -n $pid ]] && { wait "$pid"; } 2>/dev/null; done
    for node in 1 2 3; do kill_postgres "$node"; done
}
tail_logs() { # file...: the last lines of each non-empty one (after a failure)
    local log
    for log in "$@"; do [[ -s $log ]] && { echo "--- tail of $log"; tail -n 12 "$log"; }; done
}
env_of() { grep -E '^[A-Z_][A-Z_0-9]*=' "$1"; } # the VAR=value lines of an environment file, one per line
password() { openssl rand -hex 16; }
json() { python3 -c "import json, sys; v = json.load(sys.stdin); print($1)" 2>/dev/null; }
wait_for() { # seconds command...: polls every 0.2 s until the command succeeds; the seconds it took on stdout
    local limit=$1 start
    shift
    start=$(now)
    until "$@"; do
        awk -v a="$start" -v b="$(now)" -v l="$limit" 'BEGIN { exit !(b - a > l) }' && return 1
        sleep 0.2
    done
    since "$start"
}
waits() { wait_for "$@" > /dev/null; }
node_of() { echo "${1#db}"; }

# members [API URL...]: "name role state lag" per member, from the first Patroni REST API that answers
members() {
    local url
    for url in "${@:-${api_urls[@]}}"; do
        curl -sf --max-time 2 "$url/cluster" 2>/dev/null | python3 -c '
import json, sys
for m in json.load(sys.stdin).get("members", []):
    print(m.get("name"), m.get("role"), m.get("state"), m.get("lag", 0))' 2>/dev/null && return 0
    done
    return 1
}
leader() { members "$@" | awk '$2 == "leader" && $3 == "running" { print $1 }' | head -n1; }
healthy() { # one running leader, one running synchronous standby, one more running replica
    local roles
    roles=$(members "$@" | awk '$3 == "running" || $3 == "streaming" { print $2 }' | sort | tr '\n' ' ')
    [[ $roles == "leader replica sync_standby " ]]
}
start_patroni() { # node (1-3)
    local node=$1 on
    mapfile -t on < <(on_host "db$node")
    setsid "${on[@]}" "${as_pg[@]}" env "${patroni_env[@]}" patroni "$work/conf/db$node/patroni.yml" \
        >> "$work/db$node/patroni.log" 2>&1 < /dev/null &
    patroni_pids[node - 1]=$!
}
psql_on() { # node sql...: psql as the superuser over the node's unix socket, unaligned, tuples only
    local node=$1
    shift
    "${as_pg[@]}" env HOME=/nonexistent "$PG_BIN/psql" -X -q -At -h "$work/db$node" -p "${pg_ports[node - 1]}" -d flags "$@"
}
start_app() { # node (1-3) [config dir [wrapper...]]
    local node=$1 conf=${2:-$work/conf} on
    local -a app_env
    shift 2 2>/dev/null || shift
    mapfile -t app_env < <(env_of "$conf/app$node/flagserver.env")
    mapfile -t on < <(on_host "app$node")
    : > "$work/app$node.out"
    setsid "${on[@]}" "$@" env "${app_env[@]}" FLAGSERVER_CONSOLE_DIR=off "$FLAGSERVER_BIN" \
        > "$work/app$node.out" 2>> "$work/app$node.err" < /dev/null &
    app_pids[node - 1]=$!
}
put_flag() { # url value [curl args]: a flip of production's introOfferMessage; "STATUS BODY" on stdout
    local url=$1 value=$2
    shift 2
    curl -sS --max-time 40 "$@" -o "$work/http/put.body" -w '%{http_code}' -X PUT \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -H 'X-Change-Message: cluster test' \
        --data "\"$value\"" "$url/v1/environments/production/flags/introOfferMessage" 2>/dev/null
    printf ' %s' "$(tr -d '\n' < "$work/http/put.body")"
}
missing_for_cluster() { # extra tools...: sets `missing` to what the cluster scripts need and this machine lacks
    local tool
    missing=()
    [[ -n $FLAGSERVER_BIN ]] || missing+=("FLAGSERVER_BIN (the real flagserver)")
    for tool in patroni patronictl etcd nginx curl openssl python3 "$@"; do
        command -v "$tool" > /dev/null || missing+=("$tool")
    done
    [[ -x $PG_BIN/initdb ]] || missing+=("PostgreSQL server binaries (initdb)")
}
make_secrets() { # Patroni's passwords (patroni_env) and flagserver's password file ($work/pgpass)
    local db_password
    db_password=$(password)
    patroni_env=(HOME=/nonexistent PATRONI_SUPERUSER_PASSWORD="$(password)" PATRONI_REPLICATION_PASSWORD="$(password)"
        PATRONI_REWIND_PASSWORD="$(password)" PATRONI_RESTAPI_USERNAME=patroni PATRONI_RESTAPI_PASSWORD="$(password)"
        FLAGSERVER_DB_PASSWORD="$db_password")
    printf '*:*:flags:flagserver:%s\n' "$db_password" > "$work/pgpass"
    chmod 600 "$work/pgpass"
}
start_front() { # upstreams (host:port,...) https-port http-port: nginx from the shipped template in $work/nginx,
    # over a throw-away certificate in $work/tls (tls, front, nginx_pid)
    local prefix=$work/nginx
    tls=$work/tls
    mkdir -p "$tls" "$prefix/conf" "$prefix/logs" "$prefix/tmp"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=localhost" \
        -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$tls/key.pem" -out "$tls/cert.pem" > "$work/openssl.log" 2>&1
    "$repo/deploy/nginx/render-conf.sh" UPSTREAM="$1" CACHE_DIR="$prefix/cache" HTTP_LISTEN="127.0.0.1:$3" \
        HTTPS_LISTEN="127.0.0.1:$2" HTTPS_ORIGIN="https://\$host:$2" SERVER_NAME=localhost CERT="$tls/cert.pem" \
        KEY="$tls/key.pem" > "$prefix/conf/flagserver.conf"
    "$repo/deploy/testing/nginx-prefix-conf.sh" "$prefix" > "$prefix/conf/nginx.conf"
    setsid nginx -p "$prefix/" -c "$prefix/conf/nginx.conf" -e "$prefix/logs/error.log" -g 'daemon off;' \
        > "$prefix/logs/stdout.log" 2>&1 < /dev/null &
    nginx_pid=$!
    front=https://127.0.0.1:$2
}
new_leader() { local l; l=$(leader "${survivors[@]}"); [[ -n $l && $l != "$old" ]]; }
await_promotion() { # what-happened synchronous-standby: up to 120 s for a leader other than $old among the $survivors'
    # APIs; sets new and promoted_after (seconds, or none), checks that the synchronous standby was promoted
    if promoted_after=$(wait_for 120 new_leader); then
        new=$(leader "${survivors[@]}")
        pass "Patroni promoted $new ${promoted_after} s after $1 (the synchronous standby was $2)"
        check "the promoted node is the one that was the synchronous standby" test "$new" = "$2"
    else
        fail "no new leader within 120 s after $1 ($(members "${survivors[@]}" | tr '\n' ';'))"
        promoted_after=none new=''
        return 1
    fi
}
