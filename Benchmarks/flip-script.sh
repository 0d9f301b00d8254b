#!/usr/bin/env bash
# The wrk script of the flip benchmarks (flagserver-vs-nginx.sh, postgres-cluster.sh): PUT of the integer flag
# benchCounter in production, every request a new value (BASE + thread * 100,000,000 + counter, so wrk's threads,
# and wrk processes given different BASEs, never send the same value), each a new durable version.
# Usage: Benchmarks/flip-script.sh TOKEN [BASE] > put.lua
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 TOKEN [BASE]" >&2; exit 64; }
cat <<LUA
local counter = 0
local thread_id = 0
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) thread_id = id end
function request()
  counter = counter + 1
  return wrk.format("PUT", "/v1/environments/production/flags/benchCounter", {
    ["Authorization"] = "Bearer $1", ["Content-Type"] = "application/json", ["X-Change-Message"] = "bench flip"
  }, tostring(${2:-0} + thread_id * 100000000 + counter))
end
LUA
