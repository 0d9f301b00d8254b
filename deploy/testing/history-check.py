#!/usr/bin/env python3
"""Checks a history of requests (deploy/testing/history-probe.py's events) against the final history of versions.

  history-check.py EVENTS_FILE HISTORY_FILE [NAME:FROM:TO ...]

HISTORY_FILE: the versions the database ends with, one "NUMBER CONTENTHASH" a line (deploy/test-partitions.sh reads
them on every PostgreSQL node after healing). The rules, each violation printed as "VIOLATION rule: detail":
  acknowledged  every acknowledged write (200) is in the final history under its number with its content hash;
  assigned-once no version number is seen with two content hashes, in any answer (writes' and reads');
  monotonic     reads on one node (every target but "front") never go backwards: a read that starts after another
                ended answers at least that one's version;
  read-own-ack  a read on a node that starts after a write acknowledged by that node ended sees that version or newer.
Figures, one "FIGURE name value" a line: requests, acknowledged writes, versions lost (acknowledged, not in the final
history: must be 0), refused writes by code, the longest write, and per node the stale window (the longest time its
reads answered versions older than a write acknowledged anywhere before they started) and the time its reads carried
Flagserver-Database-Unreachable-Seconds. Each NAME:FROM:TO (Unix times) adds the same figures for writes sent in that
window, prefixed by NAME. Prints "history-check: N violations"; exits 1 when there is one."""
import collections
import json
import sys


def load_events(path):
    with open(path) as file:
        return [json.loads(line) for line in file if line.strip()]


def load_history(path):
    history = {}
    with open(path) as file:
        for line in file:
            if line.strip():
                number, content_hash = line.split()
                history[int(number)] = content_hash
    return history


def violations(events, history):
    """Every broken rule, as (rule, detail) pairs."""
    found = []
    acks = [e for e in events if e["op"] == "write" and e["status"] == 200]
    for ack in acks:
        if history.get(ack["version"]) != ack["hash"]:
            found.append(("acknowledged", f"{ack['target']} version {ack['version']} {ack['hash'][:12]} at {ack['end']:.3f}: "
                                          f"final history has {(history.get(ack['version']) or 'nothing')[:12]}"))
    seen = collections.defaultdict(set)
    for event in events:
        if event["status"] == 200:
            seen[event["version"]].add(event["hash"])
    for number, content_hash in history.items():
        seen[number].add(content_hash)
    for number, hashes in sorted(seen.items()):
        if len(hashes) > 1:
            found.append(("assigned-once", f"version {number} has {len(hashes)} contents: {sorted(h[:12] for h in hashes)}"))
    reads = collections.defaultdict(list)
    for event in events:
        if event["op"] == "read" and event["status"] == 200 and event["target"] != "front":
            reads[event["target"]].append(event)
    for target, answers in reads.items():
        answers.sort(key=lambda e: e["start"])
        # The newest version among reads that ended before this one started (ends are not ordered like starts).
        by_end = sorted(answers, key=lambda e: e["end"])
        index, newest, newest_at = 0, 0, None
        for read in answers:
            while index < len(by_end) and by_end[index]["end"] < read["start"]:
                if by_end[index]["version"] > newest:
                    newest, newest_at = by_end[index]["version"], by_end[index]["end"]
                index += 1
            if read["version"] < newest:
                found.append(("monotonic", f"{target} answered {read['version']} at {read['start']:.3f} after "
                                           f"{newest} at {newest_at:.3f}"))
        own = sorted((a for a in acks if a["target"] == target), key=lambda a: a["end"])
        index, newest = 0, 0
        for read in answers:
            while index < len(own) and own[index]["end"] < read["start"]:
                newest = max(newest, own[index]["version"])
                index += 1
            if read["version"] < newest:
                found.append(("read-own-ack", f"{target} answered {read['version']} at {read['start']:.3f} after "
                                              f"acknowledging {newest}"))
    return found


def windows(reads, acks, test):
    """The longest stretch (seconds) of consecutive reads for which test(read, newest acknowledged before it) holds."""
    acks = sorted(acks, key=lambda a: a["end"])
    longest, began, index, newest = 0.0, None, 0, 0
    for read in sorted(reads, key=lambda e: e["start"]):
        while index < len(acks) and acks[index]["end"] < read["start"]:
            newest = max(newest, acks[index]["version"])
            index += 1
        if test(read, newest):
            began = read["start"] if began is None else began
            longest = max(longest, read["end"] - began)
        else:
            began = None
    return longest


def figures(events, history, prefix="", writes_from=0.0, writes_to=float("inf")):
    """(name, value) pairs; the write figures count writes sent within [writes_from, writes_to]."""
    writes = [e for e in events if e["op"] == "write" and writes_from <= e["start"] <= writes_to]
    acks = [e for e in writes if e["status"] == 200]
    out = [(prefix + "writes", len(writes)), (prefix + "acknowledged", len(acks)),
           (prefix + "versions_lost", sum(1 for a in acks if history.get(a["version"]) != a["hash"]))]
    refused = collections.Counter(f"{e['status']}:{e['code']}" for e in writes if e["status"] != 200)
    out.append((prefix + "writes_refused", " ".join(f"{k}x{n}" for k, n in sorted(refused.items())) or "none"))
    out.append((prefix + "writes_503", sum(n for k, n in refused.items() if k.startswith("503:"))))
    out.append((prefix + "longest_write_seconds", f"{max((e['end'] - e['start'] for e in writes), default=0):.1f}"))
    if prefix:
        return out
    out.insert(0, ("requests", len(events)))
    every_ack = [e for e in events if e["op"] == "write" and e["status"] == 200]
    targets = sorted({e["target"] for e in events if e["target"] != "front"})
    for target in targets:
        reads = [e for e in events if e["op"] == "read" and e["target"] == target and e["status"] == 200]
        out.append((f"{target}_stale_window_seconds", f"{windows(reads, every_ack, lambda r, n: r['version'] < n):.1f}"))
        out.append((f"{target}_unreachable_header_seconds",
                    f"{windows(reads, every_ack, lambda r, n: r['unreachable'] is not None):.1f}"))
    return out


def main(arguments):
    if len(arguments) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    events, history = load_events(arguments[0]), load_history(arguments[1])
    for name, value in figures(events, history):
        print(f"FIGURE {name} {value}")
    for window in arguments[2:]:
        name, start, end = window.rsplit(":", 2)
        for figure, value in figures(events, history, name + "_", float(start), float(end)):
            print(f"FIGURE {figure} {value}")
    found = violations(events, history)
    for rule, detail in found[:40]:
        print(f"VIOLATION {rule}: {detail}")
    print(f"history-check: {len(found)} violations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
