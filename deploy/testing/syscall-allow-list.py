#!/usr/bin/env python3
"""The system calls a systemd unit's SystemCallFilter= lines allow, one per line: allow groups expanded
(from `systemd-analyze syscall-filter`), then ~ groups removed. Used by deploy/test-systemd-units.sh and
deploy/test-patroni.sh to compare what a traced run called (strace -f) with what the unit permits.

  syscall-allow-list.py UNIT_FILE"""
import re, subprocess, sys
listing = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True).stdout
groups, current = {}, None
for line in listing.splitlines():
    if line.startswith("@"):
        current = line.strip()
        groups[current] = []
    elif line.startswith("    ") and current and not line.strip().startswith("#"):
        groups[current].append(line.strip())
    elif not line.strip() or line.startswith("#"):
        current = None
def expand(name, seen=()):
    if not name.startswith("@"):
        return {name}
    return set().union(set(), *(expand(item, seen + (name,)) for item in groups.get(name, []) if item not in seen))
allow, deny = set(), set()
for line in open(sys.argv[1]):
    match = re.match(r"SystemCallFilter=(~?)(.*)", line.strip())
    if match:
        names = set().union(*(expand(word) for word in match.group(2).split()))
        (deny if match.group(1) else allow).update(names)
print("\n".join(sorted(allow - deny)))
