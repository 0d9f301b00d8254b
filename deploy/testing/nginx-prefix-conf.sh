#!/usr/bin/env bash
# The nginx.conf the deploy checks run nginx with: one worker, logs and temp files under PREFIX (nginx -p PREFIX/),
# and PREFIX/conf/flagserver.conf (rendered from deploy/nginx/flagserver.conf.template) as the whole http block.
# Usage: deploy/testing/nginx-prefix-conf.sh PREFIX > PREFIX/conf/nginx.conf
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 PREFIX" >&2; exit 64; }
prefix=$1
cat <<CONF
worker_processes 1;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log info;
events { worker_connections 256; }
http {
    access_log $prefix/logs/access.log;
    client_body_temp_path $prefix/tmp/body;
    proxy_temp_path $prefix/tmp/proxy;
    fastcgi_temp_path $prefix/tmp/fastcgi;
    uwsgi_temp_path $prefix/tmp/uwsgi;
    scgi_temp_path $prefix/tmp/scgi;
    include $prefix/conf/flagserver.conf;
}
CONF
