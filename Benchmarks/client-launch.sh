#!/usr/bin/env bash
# FlagClient launch cost and refresh round trip, run by hand (never in CI). Release build.
# Launch: FlagClient(configuration:) with a cache present until every typed value is read (target < 2 ms),
# median and p99 over many runs, with FlagKit's bare decode+evaluate of the same document as the in-process peer.
# Refresh: one forced refresh() against a tiny local server (200 and 304) on libcurl and on URLSession
# (FoundationNetworking), each with its bare GET as the peer, and the URLSession / libcurl ratios.
# Usage: Benchmarks/client-launch.sh [flags file] [launch runs] [refresh runs]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine
swift build -c release --product client-bench >/dev/null
exec .build/release/client-bench "${1:-flags/production.json}" "${2:-2000}" "${3:-300}"
