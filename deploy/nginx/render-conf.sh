#!/usr/bin/env bash
# Renders flagserver.conf.template to standard output.
#   render-conf.sh                      production values (what deploy/nginx/flagserver.conf holds)
#   render-conf.sh NAME=VALUE ...       overrides, e.g. the test's loopback ports and temp paths
#   render-conf.sh UPSTREAM=10.0.0.21:8080,10.0.0.22:8080   several flagserver nodes (deploy/cluster/)
# Refuses unknown names, values that could break out of a directive (; { } " ' newline, space),
# and any placeholder left unreplaced.
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true   # bash 5.2: '&' in a replacement must stay literal

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2016  # '$host' is nginx's variable, not the shell's
declare -A values=(
    [UPSTREAM]=127.0.0.1:8080
    [CACHE_DIR]=/var/cache/nginx/flagserver
    [HTTP_LISTEN]=80
    [HTTPS_LISTEN]=443
    [HTTPS_ORIGIN]='https://$host'
    [SERVER_NAME]=flags.example.org
    [CERT]=/etc/ssl/flagserver/fullchain.pem
    [KEY]=/etc/ssl/flagserver/privkey.pem
)
for pair in "$@"; do
    name=${pair%%=*}
    value=${pair#*=}
    if [[ $pair != *=* || -z ${values[$name]+set} ]]; then
        echo "render-conf.sh: unknown placeholder '$name' (known: ${!values[*]})" >&2
        exit 2
    fi
    if [[ -z $value || $value =~ [\;\{\}\"\'[:space:]] ]]; then
        echo "render-conf.sh: $name: value '$value' is empty or has ; { } quotes or white space" >&2
        exit 2
    fi
    values[$name]=$value
done

text=$(<"$here/flagserver.conf.template")
# UPSTREAM may list several nodes (host:port,host:port): the line that names it is repeated for each.
IFS=, read -ra upstreams <<<"${values[UPSTREAM]}"
if ((${#upstreams[@]} > 1)); then
    expanded=''
    while IFS= read -r line; do
        if [[ $line == *@UPSTREAM@* ]]; then
            for upstream in "${upstreams[@]}"; do expanded+=${line//@UPSTREAM@/$upstream}$'\n'; done
        else
            expanded+=$line$'\n'
        fi
    done <<<"$text"
    text=${expanded%$'\n'}
fi
for name in "${!values[@]}"; do
    text=${text//@$name@/${values[$name]}}
done
# Placeholders are @UPPER_CASE@ words; comments may mention the convention itself.
if left=$(grep -v '^[[:space:]]*#' <<<"$text" | grep -o '@[A-Z_][A-Z_0-9]*@'); then
    echo "render-conf.sh: placeholders left: $left" >&2
    exit 1
fi
printf '%s\n' "$text"
