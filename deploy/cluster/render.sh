#!/usr/bin/env bash
# Renders the PostgreSQL layout's per-host files from the templates in this directory into OUTDIR:
#   OUTDIR/dbN/patroni.yml, OUTDIR/dbN/etcd.env        the three database hosts (Patroni + PostgreSQL + etcd)
#   OUTDIR/appN/flagserver.env                         the flagserver hosts
#   OUTDIR/front/flagserver.conf                       nginx with every flagserver host as an upstream
#                                                      (deploy/nginx/render-conf.sh with UPSTREAM=the list)
#   render.sh OUTDIR                    production values (what deploy/cluster/hosts/ holds, committed)
#   render.sh NAME=VALUE ... OUTDIR     overrides, e.g. deploy/test-patroni.sh's loopback ports and temp paths
# Per-node values are comma-separated lists with one entry per node, or a single entry for every node.
# Refuses unknown names, values with quotes, ; { } & or white space, and any placeholder left unreplaced.
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true   # bash 5.2: '&' in a replacement must stay literal

here=$(cd "$(dirname "$0")" && pwd)
declare -A values=(
    [DB_ADDRESSES]='10.0.0.11,10.0.0.12,10.0.0.13'
    [PG_PORTS]=5432
    [API_PORTS]=8008
    [DATA_DIRS]=/var/lib/postgresql/15/flags
    [SOCKET_DIRS]=/var/run/postgresql
    [LOG_DIRS]=/var/log/postgresql
    [PGPASS_FILES]=/var/lib/postgresql/patroni-flags.pgpass
    [BIN_DIR]=/usr/lib/postgresql/15/bin
    [POST_BOOTSTRAP]=/usr/local/lib/flagserver/patroni-post-bootstrap
    [NETWORK]=10.0.0.0/24
    [ETCD_ADDRESSES]=''
    [ETCD_CLIENT_PORTS]=2379
    [ETCD_PEER_PORTS]=2380
    [ETCD_DATA_DIRS]=/var/lib/etcd/flags
    [APP_ADDRESSES]='10.0.0.21,10.0.0.22'
    [APP_PORTS]=8080
    [FRONT_ADDRESS]=10.0.0.10
    [FLAGS_DIR]=/usr/local/share/flagserver/flags
    [PGPASSFILE]=/etc/flagserver/pgpass
)
# libpq options of the flagserver hosts' URI (docs/deploy.md explains each).
uri_options='target_session_attrs=read-write&connect_timeout=3&keepalives_idle=5&keepalives_interval=2&keepalives_count=3&tcp_user_timeout=10000'

usage() { echo "usage: render.sh [NAME=VALUE ...] OUTDIR (names: ${!values[*]})" >&2; exit 2; }
(($# >= 1)) || usage
out=${*: -1}
[[ $out != *=* ]] || usage
for pair in "${@:1:$#-1}"; do
    name=${pair%%=*}
    value=${pair#*=}
    if [[ $pair != *=* || -z ${values[$name]+set} ]]; then
        echo "render.sh: unknown name '$name' (known: ${!values[*]})" >&2
        exit 2
    fi
    if [[ -z $value || $value =~ [\;\{\}\"\'\&[:space:]] ]]; then
        echo "render.sh: $name: value '$value' is empty or has ; { } & quotes or white space" >&2
        exit 2
    fi
    values[$name]=$value
done
[[ -n ${values[ETCD_ADDRESSES]} ]] || values[ETCD_ADDRESSES]=${values[DB_ADDRESSES]}

IFS=, read -ra db_addresses <<<"${values[DB_ADDRESSES]}"
IFS=, read -ra etcd_addresses <<<"${values[ETCD_ADDRESSES]}"
IFS=, read -ra app_addresses <<<"${values[APP_ADDRESSES]}"
# nth LIST_NAME INDEX COUNT: the INDEX-th entry (0-based) of a per-node list of COUNT nodes
nth() {
    local -a list
    IFS=, read -ra list <<<"${values[$1]}"
    if ((${#list[@]} == 1)); then
        printf '%s' "${list[0]}"
    elif ((${#list[@]} == $3)); then
        printf '%s' "${list[$2]}"
    else
        echo "render.sh: $1 has ${#list[@]} entries for $3 nodes (give one, or one per node)" >&2
        return 1
    fi
}
# render TEMPLATE NAME=VALUE...: the template with each @NAME@ replaced; fails on a placeholder left over
render() {
    local text pair
    text=$(<"$here/$1")
    shift
    for pair in "$@"; do
        text=${text//@${pair%%=*}@/${pair#*=}}
    done
    if left=$(grep -v '^[[:space:]]*#' <<<"$text" | grep -o '@[A-Z_][A-Z_0-9]*@'); then
        echo "render.sh: placeholders left: $left" >&2
        return 1
    fi
    printf '%s\n' "$text"
}

etcd_hosts='' initial_cluster=''
for i in "${!etcd_addresses[@]}"; do
    client=$(nth ETCD_CLIENT_PORTS "$i" "${#etcd_addresses[@]}")
    peer=$(nth ETCD_PEER_PORTS "$i" "${#etcd_addresses[@]}")
    etcd_hosts+=${etcd_hosts:+,}${etcd_addresses[$i]}:$client
    initial_cluster+=${initial_cluster:+,}db$((i + 1))=http://${etcd_addresses[$i]}:$peer
done
uri_hosts=''
for i in "${!db_addresses[@]}"; do
    uri_hosts+=${uri_hosts:+,}${db_addresses[$i]}:$(nth PG_PORTS "$i" "${#db_addresses[@]}")
done
upstreams=''
for i in "${!app_addresses[@]}"; do
    upstreams+=${upstreams:+,}${app_addresses[$i]}:$(nth APP_PORTS "$i" "${#app_addresses[@]}")
done

mkdir -p "$out"
n=${#db_addresses[@]}
for i in "${!db_addresses[@]}"; do
    name=db$((i + 1))
    mkdir -p "$out/$name"
    render patroni.yml.template NAME="$name" ADDRESS="${db_addresses[$i]}" \
        API_PORT="$(nth API_PORTS "$i" "$n")" PG_PORT="$(nth PG_PORTS "$i" "$n")" \
        DATA_DIR="$(nth DATA_DIRS "$i" "$n")" SOCKET_DIR="$(nth SOCKET_DIRS "$i" "$n")" \
        LOG_DIR="$(nth LOG_DIRS "$i" "$n")" PGPASS="$(nth PGPASS_FILES "$i" "$n")" \
        BIN_DIR="${values[BIN_DIR]}" POST_BOOTSTRAP="${values[POST_BOOTSTRAP]}" NETWORK="${values[NETWORK]}" \
        ETCD_HOSTS="$etcd_hosts" > "$out/$name/patroni.yml"
done
for i in "${!etcd_addresses[@]}"; do
    name=db$((i + 1))
    mkdir -p "$out/$name"
    render etcd.env.template NAME="$name" ADDRESS="${etcd_addresses[$i]}" \
        ETCD_CLIENT_PORT="$(nth ETCD_CLIENT_PORTS "$i" "${#etcd_addresses[@]}")" \
        ETCD_PEER_PORT="$(nth ETCD_PEER_PORTS "$i" "${#etcd_addresses[@]}")" \
        ETCD_DATA_DIR="$(nth ETCD_DATA_DIRS "$i" "${#etcd_addresses[@]}")" \
        ETCD_INITIAL_CLUSTER="$initial_cluster" > "$out/$name/etcd.env"
done
for i in "${!app_addresses[@]}"; do
    name=app$((i + 1))
    mkdir -p "$out/$name"
    render flagserver.env.template NAME="$name" ADDRESS="${app_addresses[$i]}" \
        PORT="$(nth APP_PORTS "$i" "${#app_addresses[@]}")" \
        DATABASE_URI="postgresql://flagserver@$uri_hosts/flags?$uri_options" \
        PGPASSFILE="${values[PGPASSFILE]}" FLAGS_DIR="${values[FLAGS_DIR]}" \
        FRONT_ADDRESS="${values[FRONT_ADDRESS]}" > "$out/$name/flagserver.env"
done
mkdir -p "$out/front"
"$here/../nginx/render-conf.sh" UPSTREAM="$upstreams" > "$out/front/flagserver.conf"
