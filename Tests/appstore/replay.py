#!/usr/bin/env python3
"""The launch-week replay: N App Store Server Notifications (default 100,000; launch_week.py, documented in
docs/appstore.md) signed with a throw-away chain, POSTed to a real flagserver over several keep-alive connections,
then the server's outcomes for the week compared with the known truth (outcome_truth.py).

    # a server started here (temporary SQLite file; bytes per notification measured from it)
    replay.py --flagserver-bin .build/debug/flagserver --count 2000
    # a running server configured with DIR/root.pem (appstore_ca.py --out DIR), bundle app.symi.journal,
    # app id 6450000001, environment Production
    replay.py --base-url http://127.0.0.1:8080 --token sfl_... --chain DIR [--database PATH | --database-size-cmd CMD]
    # only the truth, no server
    replay.py --truth-only --count 2000

Prints a table (every metric: truth and server, totals and per product) and a JSON summary (also --json PATH);
exits 1 when a metric differs, a notification was not answered 200, or the stored count is not the unique count.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import itertools
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from appstore_ca import load_chain, make_chain, save_chain  # noqa: E402
from appstore_sign import (APP_APPLE_ID, BUNDLE_ID, DAY_MS, Signer, notification, renewal_info,  # noqa: E402
                           transaction_info)
from flagserver_process import FlagServer, request  # noqa: E402
from launch_week import PRODUCTS, Event, launch_week  # noqa: E402
from outcome_truth import METRICS, outcomes  # noqa: E402


def payloads(event: Event):
    """The signed parts of one notification as dicts (the transaction, the renewal info, the notification)."""
    if event.transaction is None:
        return None, None
    t, r = event.transaction, event.renewal or {}
    transaction = transaction_info(
        original_transaction_id=event.original, transaction_id=t["transactionId"], product_id=t["productId"],
        purchase_date=t["purchaseDate"], expires_date=t["expiresDate"], signed_date=event.time,
        original_purchase_date=None, offer_type=t.get("offerType"), offer_identifier=t.get("offerIdentifier"),
        offer_discount_type=t.get("offerDiscountType"), offer_period=t.get("offerPeriod"), price=t["price"],
        transaction_reason=t["transactionReason"], revocation_reason=t.get("revocationReason"),
        revocation_date=t.get("revocationDate"))
    renewal = renewal_info(
        original_transaction_id=event.original, product_id=t["productId"], signed_date=event.time,
        auto_renew_status=r.get("autoRenewStatus", 1), expiration_intent=r.get("expirationIntent"),
        is_in_billing_retry_period=r.get("isInBillingRetryPeriod"),
        price_increase_status=r.get("priceIncreaseStatus"), grace_period_expires_date=r.get("gracePeriodExpiresDate"),
        renewal_date=t["expiresDate"], renewal_price=PRODUCTS[t["productId"]]["price"])
    return transaction, renewal


def record_of(event: Event, transaction: Optional[dict], renewal: Optional[dict]) -> dict:
    """What the outcome definitions read of a notification, taken from the payloads that are signed."""
    t, r = transaction or {}, renewal or {}
    return {"notificationUUID": event.uuid, "notificationType": event.notification_type, "subtype": event.subtype,
            "signedDate": event.time, "productId": t.get("productId"), "offerType": t.get("offerType"),
            "offerDiscountType": t.get("offerDiscountType"), "expiresDate": t.get("expiresDate"),
            "gracePeriodExpiresDate": r.get("gracePeriodExpiresDate"), "subscription": event.original}


def sign_to_file(events: List[Event], signer: Signer, path: str):
    """Writes one POST body per line; returns (offsets, lengths, records of the unique notifications)."""
    offsets, lengths, records, seen = [], [], [], set()
    with open(path, "wb") as out:
        for event in events:
            transaction, renewal = payloads(event)
            body = notification(
                notification_type=event.notification_type, subtype=event.subtype, signed_date=event.time,
                signed_transaction_info=signer.sign(transaction) if transaction else None,
                signed_renewal_info=signer.sign(renewal) if renewal else None,
                status=None if transaction is None else 1, notification_uuid=event.uuid)
            line = json.dumps({"signedPayload": signer.sign(body)}).encode()
            offsets.append(out.tell())
            lengths.append(len(line))
            out.write(line + b"\n")
            if event.uuid not in seen:
                seen.add(event.uuid)
                records.append(record_of(event, transaction, renewal))
    return offsets, lengths, records


def post_all(base_url: str, path: str, offsets: List[int], lengths: List[int], connections: int) -> dict:
    """POSTs every body over `connections` keep-alive connections; a refusal or a dropped connection is retried
    (as Apple retries) up to three times and counted."""
    target = urllib.parse.urlsplit(base_url)
    counter = itertools.count()
    latencies: List[float] = []
    statuses: Dict[int, int] = {}
    stored = {"true": 0, "false": 0}
    problems: List[str] = []
    lock = threading.Lock()

    def connect() -> http.client.HTTPConnection:
        # No Nagle: a request must not wait for the previous response's delayed ACK.
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def worker():
        conn = connect()
        mine, my_statuses, my_stored, my_problems = [], {}, {"true": 0, "false": 0}, []
        with open(path, "rb") as bodies:
            while True:
                index = next(counter)
                if index >= len(offsets):
                    break
                bodies.seek(offsets[index])
                body = bodies.read(lengths[index])
                for attempt in range(4):
                    began = time.perf_counter()
                    try:
                        conn.request("POST", "/v1/appstore/notifications", body,
                                     {"Content-Type": "application/json"})
                        response = conn.getresponse()
                        answer = response.read()
                        status = response.status
                    except (OSError, http.client.HTTPException) as error:
                        conn.close()
                        status, answer = 0, str(error).encode()
                        try:
                            conn = connect()
                        except OSError:
                            pass
                    mine.append(time.perf_counter() - began)
                    my_statuses[status] = my_statuses.get(status, 0) + 1
                    if status == 200:
                        my_stored["true" if json.loads(answer).get("stored") else "false"] += 1
                        break
                    if len(my_problems) < 20:
                        my_problems.append(f"#{index} attempt {attempt + 1}: {status} {answer[:200]!r}")
                    time.sleep(0.5)
        conn.close()
        with lock:
            latencies.extend(mine)
            for key, value in my_statuses.items():
                statuses[key] = statuses.get(key, 0) + value
            for key in stored:
                stored[key] += my_stored[key]
            problems.extend(my_problems)

    began = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    latencies.sort()

    def percentile(p):
        return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000, 2) if latencies else None

    return {"seconds": round(elapsed, 2), "rate": round(len(offsets) / elapsed, 1) if elapsed else None,
            "p50_ms": percentile(0.50), "p99_ms": percentile(0.99), "statuses": statuses, "stored": stored,
            "problems": problems}


def iso_day(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc).strftime("%Y-%m-%d")


def server_outcomes(base_url: str, token: str, start: int, end: int, product: Optional[str]) -> dict:
    query = {"from": iso_day(start), "to": iso_day(end), "bucket": "day"}
    if product:
        query["product"] = product
    status, body = request(f"{base_url}/v1/appstore/outcomes?{urllib.parse.urlencode(query)}", token=token)
    if status != 200:
        raise RuntimeError(f"GET /v1/appstore/outcomes ({query}): {status} {body[:300]!r}")
    return json.loads(body)


def compare(truth: dict, server: dict, scope: str) -> List[str]:
    """Every metric per day (active too: the gauge at each day's end) and every count's total."""
    differences = []
    if server.get("metrics") not in (None, METRICS):
        differences.append(f"{scope}: metrics {server.get('metrics')} != {METRICS}")
    series = server.get("series", [])
    if len(series) != len(truth["series"]):
        return differences + [f"{scope}: {len(series)} buckets, want {len(truth['series'])}"]
    for day, (want, got) in enumerate(zip(truth["series"], series)):
        for metric in METRICS:
            if got.get(metric) != want[metric]:
                differences.append(f"{scope} day {day} {metric}: server {got.get(metric)}, truth {want[metric]}")
    for metric in METRICS[:-1]:
        if server.get("totals", {}).get(metric) != truth["totals"][metric]:
            differences.append(f"{scope} total {metric}: server {server.get('totals', {}).get(metric)}, "
                               f"truth {truth['totals'][metric]}")
    return differences


def table(truth: Dict[str, dict], server: Dict[str, dict]) -> str:
    scopes = list(truth)
    lines = [f"{'metric':<28}" + "".join(f"{scope[-18:]:>22}" for scope in scopes),
             f"{'':<28}" + "".join(f"{'truth / server':>22}" for _ in scopes)]
    for metric in METRICS:
        cells = []
        for scope in scopes:
            want = truth[scope]["totals"][metric]
            got = server.get(scope, {}).get("totals", {}).get(metric, "-") if server else "-"
            mark = "" if got == "-" or got == want or metric == "active" else " !"
            cells.append(f"{f'{want} / {got}{mark}':>22}")
        lines.append(f"{metric:<28}" + "".join(cells))
    lines.append("(active: at the week's end)")
    return "\n".join(lines)


def database_size(path: Optional[str], command: Optional[str]) -> Optional[int]:
    """Bytes the store uses: `command`'s output, or the SQLite file's pages in use (page_count - freelist_count,
    read through a read-only connection, so the WAL's committed pages count and its preallocated size does not)."""
    if command:
        return int(subprocess.run(command, shell=True, check=True, capture_output=True, text=True).stdout.strip())
    if path and os.path.exists(path):
        connection = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True, timeout=30)
        try:
            pages, free, size = (connection.execute(f"PRAGMA {name}").fetchone()[0]
                                 for name in ("page_count", "freelist_count", "page_size"))
        finally:
            connection.close()
        return (pages - free) * size
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100_000, help="notifications sent, duplicates included")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--week-start", help="first day of the week, YYYY-MM-DD (default: 7 days before today, UTC)")
    parser.add_argument("--connections", type=int, default=8, help="concurrent keep-alive connections")
    parser.add_argument("--flagserver-bin", help="start this flagserver (temporary SQLite file) and replay into it")
    parser.add_argument("--base-url", help="a running flagserver")
    parser.add_argument("--token", help="a writer token of the running flagserver (reads the outcomes)")
    parser.add_argument("--chain", help="directory of appstore_ca.py --out whose root.pem the running server trusts")
    parser.add_argument("--database", help="the running server's SQLite file, for bytes per notification; with "
                        "--flagserver-bin: the EMPTY PostgreSQL database (URI) to start it on instead of a new SQLite file")
    parser.add_argument("--database-size-cmd", help="a shell command printing the store's size in bytes "
                        "(e.g. psql -Atc \"select pg_total_relation_size('appstore_notifications')\")")
    parser.add_argument("--json", help="also write the JSON summary here")
    parser.add_argument("--truth-only", action="store_true", help="generate, sign and print the truth; no server")
    parser.add_argument("--work-dir", help="where the signed bodies go (default: a temporary directory)")
    args = parser.parse_args()
    if not args.truth_only and not args.flagserver_bin and not (args.base_url and args.token and args.chain):
        parser.error("give --flagserver-bin, or --base-url with --token and --chain, or --truth-only")

    if args.week_start:
        start = int(datetime.datetime.strptime(args.week_start, "%Y-%m-%d")
                    .replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
    else:
        today = int(time.time() * 1000) // DAY_MS * DAY_MS
        start = today - 7 * DAY_MS
    end = start + 7 * DAY_MS

    work = args.work_dir or tempfile.mkdtemp(prefix="appstore-replay-")
    chain = load_chain(args.chain) if args.chain else make_chain()
    if not args.chain:
        save_chain(chain, work)
    began = time.perf_counter()
    events = launch_week(args.count, start, args.seed)
    bodies = os.path.join(work, "bodies.jsonl")
    offsets, lengths, records = sign_to_file(events, Signer(chain), bodies)
    signing = time.perf_counter() - began
    truth = {"all": outcomes(records, start, end, DAY_MS)}
    for product in PRODUCTS:
        truth[product] = outcomes(records, start, end, DAY_MS, product)
    summary = {"count": len(events), "unique": len(records), "duplicates": len(events) - len(records),
               "week": [iso_day(start), iso_day(end)], "signing_seconds": round(signing, 2),
               "body_bytes_mean": round(sum(lengths) / len(lengths)),
               "truth": {scope: t["totals"] for scope, t in truth.items()}}

    server = None
    differences: List[str] = []
    try:
        if args.flagserver_bin:
            server = FlagServer(args.flagserver_bin, os.path.join(work, "root.pem"), BUNDLE_ID, APP_APPLE_ID,
                                ("Production",), database=args.database).start()
            base_url, token = server.url, server.token
            database = server.database if server.is_sqlite else None
        else:
            base_url, token, database = (args.base_url or "").rstrip("/"), args.token, args.database
        observed: Dict[str, dict] = {}
        if not args.truth_only:
            size_before = database_size(database, args.database_size_cmd)
            sent = post_all(base_url, bodies, offsets, lengths, args.connections)
            size_after = database_size(database, args.database_size_cmd)
            summary.update(post=sent)
            if size_before is not None and size_after is not None:
                summary["bytes_per_notification"] = round((size_after - size_before) / max(1, sent["stored"]["true"]))
            if sent["statuses"].get(200, 0) != len(events):
                differences.append(f"{len(events) - sent['statuses'].get(200, 0)} notifications never got a 200")
            if sent["stored"]["true"] != len(records):
                differences.append(f"stored {sent['stored']['true']}, want {len(records)} (the unique count)")
            for scope in truth:
                observed[scope] = server_outcomes(base_url, token, start, end, None if scope == "all" else scope)
                differences += compare(truth[scope], observed[scope], scope)
        print(table(truth, observed))
    finally:
        if server is not None:
            server.stop()
        if not args.work_dir:
            for name in ("bodies.jsonl", "root.pem", "root.der", "chain.pem"):
                if os.path.exists(os.path.join(work, name)):
                    os.remove(os.path.join(work, name))
            os.rmdir(work)
    summary["differences"] = differences[:200]
    summary["ok"] = not differences
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0 if not differences else 1


if __name__ == "__main__":
    sys.exit(main())
