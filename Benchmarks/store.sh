#!/usr/bin/env bash
# Store measurements, run by hand (never in CI): durable publishes per second of ~1 KB documents
# (WAL, synchronous=FULL, one transaction per publish) and cold open + load of the latest versions with
# 10,000 versions stored. The peer is raw SQLite driven from Python with the same pragmas and the same
# one-insert-per-transaction pattern, measured in the same run on the same disk; the ratio is ours/peer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap --bench   # wrk, nginx, valgrind, hyperfine and the build's libraries on a fresh machine
swift build -c release --product flagstore-bench >/dev/null
BENCH=.build/release/flagstore-bench
DIR=$(mktemp -d "${TMPDIR:-/tmp}/flagstore-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
COUNT=${COUNT:-2000}

ours=$("$BENCH" publish "$DIR/ours.sqlite" "$COUNT")
echo "$ours"
peer=$(python3 - "$DIR/peer.sqlite" "$COUNT" <<'PY'
import sqlite3, sys, time, hashlib
path, count = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path, isolation_level=None)
assert db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
db.execute("PRAGMA synchronous=FULL")
db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, env INTEGER, number INTEGER, doc BLOB, hash TEXT, UNIQUE(env, number))")
start = time.monotonic()
for i in range(count):
    doc = ('{"n":%d,"pad":"%s"}' % (i, "p" * 1000)).encode()
    db.execute("BEGIN IMMEDIATE")
    db.execute("SELECT max(number) FROM v WHERE env = 1").fetchone()
    db.execute("INSERT INTO v (env, number, doc, hash) VALUES (1, ?, ?, ?)", (i + 1, doc, hashlib.sha256(doc).hexdigest()))
    db.execute("COMMIT")
elapsed = time.monotonic() - start
print("%.0f" % (count / elapsed))
PY
)
echo "peer (python sqlite3, same pragmas): $peer publishes/s"
python3 -c "import re,sys; o=float(re.search(r'= (\d+)/s', sys.argv[1]).group(1)); print('ratio ours/peer: %.2fx' % (o/float(sys.argv[2])))" "$ours" "$peer"

# Group commit: what a service that batches concurrent PUTs gets from one fsync per batch.
for size in 8 32; do "$BENCH" batch "$DIR/batch-$size.sqlite" "$COUNT" "$size"; done

# 10,000 versions, then a cold open + latestVersions (file in the page cache: "cold" means a new process).
"$BENCH" publish "$DIR/big.sqlite" 10000 >/dev/null
for _ in 1 2 3; do "$BENCH" open "$DIR/big.sqlite"; done
