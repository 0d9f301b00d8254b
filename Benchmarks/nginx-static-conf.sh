#!/usr/bin/env bash
# The peer of the GET benchmarks (flagserver-vs-nginx.sh, minimal-304.sh): nginx serving DIR/www/production.json
# (the same bytes as flagserver's document) as a static file on 127.0.0.1:PORT, pid and error log in DIR,
# `worker_processes auto` and keep-alive without a request limit.
# Usage: Benchmarks/nginx-static-conf.sh DIR PORT > DIR/nginx.conf; nginx -c DIR/nginx.conf -p DIR
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 DIR PORT" >&2; exit 64; }
cat <<CONF
worker_processes auto;
pid $1/nginx.pid;
error_log $1/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  default_type application/json;
  server {
    listen 127.0.0.1:$2 deferred;  # TCP_DEFER_ACCEPT, as flagserver by default
    root $1/www;
    location = /production.json { add_header Cache-Control "public, max-age=5"; }
  }
}
CONF
