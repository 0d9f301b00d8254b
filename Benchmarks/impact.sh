#!/usr/bin/env bash
# How long `flagctl diff --impact` takes for 100,000 sampled installs in a release build.
#
# Worst case on purpose: every flag of B differs from A (a changed description is enough), so no flag
# is skipped as unaffected and all ~10 flags are evaluated on both sides for every install.
# There is no peer tool to compare with, so the script prints the run time, the time per evaluation,
# and the ratio to the usual case (production -> staging, where unchanged flags are skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine
swift build -c release --product flagctl -Xswiftc -warnings-as-errors >/dev/null
bin=.build/release/flagctl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import json, sys
doc = json.load(open("flags/staging.json"))
for key, flag in doc["flags"].items():
    flag["description"] = flag.get("description", "") + " (changed)"
doc["flags"]["premiumFeaturesLocked"]["rules"][1]["rollout"] = 50
json.dump(doc, open(sys.argv[1] + "/all-changed.json", "w"))
PY
sample=${SAMPLE:-100000}
time_it() {  # prints the best wall time in seconds of 3 runs
  python3 - "$@" <<'PY'
import subprocess, sys, time
best = None
for _ in range(3):
    start = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
print(f"{best:.3f}")
PY
}
flags=$(python3 -c 'import json; print(len(json.load(open("flags/staging.json"))["flags"]))')
worst=$(time_it "$bin" diff --impact --sample "$sample" flags/production.json "$work/all-changed.json")
usual=$(time_it "$bin" diff --impact --sample "$sample" flags/production.json flags/staging.json)
plain=$(time_it "$bin" diff flags/production.json flags/staging.json)
python3 - "$sample" "$flags" "$worst" "$usual" "$plain" <<'PY'
import sys
sample, flags, worst, usual, plain = int(sys.argv[1]), int(sys.argv[2]), *map(float, sys.argv[3:])
evaluations = sample * flags * 2
print(f"installs sampled:              {sample:,}")
print(f"worst case (all {flags} flags changed): {worst:.3f} s  ({(worst - plain) * 1e9 / evaluations:.0f} ns per evaluation, {evaluations:,} evaluations)")
print(f"production -> staging:          {usual:.3f} s  (ratio to worst case {usual / worst:.2f})")
print(f"diff without --impact:          {plain:.3f} s  (process start and parsing)")
PY
