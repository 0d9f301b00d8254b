"""The replay's own checks: what it signs verifies with Apple's library and decodes to the records its truth is
computed from; the truth follows the plan's definitions on hand-made histories; the week's mix exercises every
metric; and, with FLAGSERVER_BIN, a 2,000-notification replay through a real flagserver matches its truth."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

from appstore_ca import make_chain
from appstore_sign import APP_APPLE_ID, BUNDLE_ID, DAY_MS, Signer
from launch_week import DUPLICATE_SHARE, HOUR_MS, launch_week
from outcome_truth import METRICS, outcomes
from replay import payloads, record_of, sign_to_file

WEEK = 1_795_996_800_000        # 2026-11-29T00:00:00Z, a Sunday


def test_replayed_notifications_verify_with_apple_and_match_the_truth_records(tmp_path):
    chain = make_chain()
    events = launch_week(600, WEEK, seed=5)
    offsets, lengths, records = sign_to_file(events, Signer(chain), str(tmp_path / "bodies.jsonl"))
    assert len(offsets) == 600
    assert max(lengths) < 65_536, "every body fits the receiver's 64 KiB"
    verifier = SignedDataVerifier([chain.root_der], False, Environment.PRODUCTION, BUNDLE_ID, APP_APPLE_ID)
    by_uuid = {r["notificationUUID"]: r for r in records}
    with open(tmp_path / "bodies.jsonl", "rb") as bodies:
        for offset, length in zip(offsets, lengths):
            bodies.seek(offset)
            signed = json.loads(bodies.read(length))["signedPayload"]
            n = verifier.verify_and_decode_notification(signed)
            record = by_uuid[n.notificationUUID]
            assert (n.rawNotificationType, n.rawSubtype, n.signedDate) == \
                (record["notificationType"], record["subtype"], record["signedDate"])
            if n.data.signedTransactionInfo is None:
                assert record["productId"] is None
                continue
            t = verifier.verify_and_decode_signed_transaction(n.data.signedTransactionInfo)
            r = verifier.verify_and_decode_renewal_info(n.data.signedRenewalInfo)
            assert (t.productId, t.rawOfferType, t.rawOfferDiscountType, t.expiresDate, r.gracePeriodExpiresDate,
                    t.originalTransactionId) == \
                (record["productId"], record["offerType"], record["offerDiscountType"], record["expiresDate"],
                 record["gracePeriodExpiresDate"], record["subscription"])


def _record(uuid, kind, subtype, at, sub="s1", offer_type=None, discount=None, expires=None, grace=None,
            product="p"):
    return {"notificationUUID": uuid, "notificationType": kind, "subtype": subtype, "signedDate": at,
            "productId": product, "offerType": offer_type, "offerDiscountType": discount, "expiresDate": expires,
            "gracePeriodExpiresDate": grace, "subscription": sub}


def test_conversions_are_the_first_paid_renewal_after_an_intro_start():
    h = HOUR_MS
    records = [
        # s1: free trial started before the range, converts inside it; later renewals are no conversions
        _record("a", "SUBSCRIBED", "INITIAL_BUY", WEEK - 5 * h, "s1", 1, "FREE_TRIAL", WEEK + 10 * h),
        _record("b", "DID_RENEW", None, WEEK + 11 * h, "s1", None, None, WEEK + 40 * h),
        _record("c", "DID_RENEW", None, WEEK + 41 * h, "s1", None, None, WEEK + 90 * h),
        # s2: pay-as-you-go intro: its second intro period is a renewal, not a conversion; the third period converts
        _record("d", "SUBSCRIBED", "INITIAL_BUY", WEEK + h, "s2", 1, "PAY_AS_YOU_GO", WEEK + 5 * h),
        _record("e", "DID_RENEW", None, WEEK + 6 * h, "s2", 1, "PAY_AS_YOU_GO", WEEK + 9 * h),
        _record("f", "DID_RENEW", "BILLING_RECOVERY", WEEK + 30 * h, "s2", None, None, WEEK + 60 * h),
        # s3: intro start, expires, resubscribes without intro: its renewal is no conversion
        _record("g", "SUBSCRIBED", "INITIAL_BUY", WEEK + 2 * h, "s3", 1, "FREE_TRIAL", WEEK + 3 * h),
        _record("h", "EXPIRED", "VOLUNTARY", WEEK + 4 * h, "s3", 1, "FREE_TRIAL", WEEK + 3 * h),
        _record("i", "SUBSCRIBED", "RESUBSCRIBE", WEEK + 5 * h, "s3", None, None, WEEK + 7 * h),
        _record("j", "DID_RENEW", None, WEEK + 8 * h, "s3", None, None, WEEK + 100 * h),
    ]
    report = outcomes(records, WEEK, WEEK + 2 * DAY_MS, DAY_MS)
    t = report["totals"]
    assert (t["started"], t["initialBuys"], t["resubscribes"], t["introStarts"], t["freeTrialStarts"]) == (3, 2, 1, 2, 1)
    assert (t["introConversions"], t["freeTrialConversions"], t["renewals"], t["recovered"]) == (2, 1, 5, 1)
    assert (t["expired"], t["expiredVoluntary"]) == (1, 1)
    assert [s["introConversions"] for s in report["series"]] == [1, 1]
    # active at the end of day 0 (24 h): s1 (until 40 h), s2 (until 9 h: no), s3 (until 100 h); at 48 h all three
    assert [s["active"] for s in report["series"]] == [2, 3]


def test_active_follows_the_latest_notification_and_grace():
    h = HOUR_MS
    records = [
        _record("a", "SUBSCRIBED", "INITIAL_BUY", WEEK + h, "s1", expires=WEEK + 10 * h),
        _record("b", "DID_FAIL_TO_RENEW", "GRACE_PERIOD", WEEK + 11 * h, "s1", expires=WEEK + 10 * h,
                grace=WEEK + 30 * h),
        _record("c", "SUBSCRIBED", "INITIAL_BUY", WEEK + h, "s2", expires=WEEK + 100 * h),
        _record("d", "REFUND", None, WEEK + 20 * h, "s2", expires=WEEK + 100 * h),
        _record("e", "REFUND_REVERSED", None, WEEK + 26 * h, "s2", expires=WEEK + 100 * h),
        _record("f", "SUBSCRIBED", "INITIAL_BUY", WEEK + h, "s3", expires=WEEK + 100 * h),
        _record("g", "DID_FAIL_TO_RENEW", None, WEEK + 2 * h, "s3", expires=WEEK + h + 1),
        _record("t", "TEST", None, WEEK + 3 * h, None, product=None),
    ]
    report = outcomes(records, WEEK, WEEK + 2 * DAY_MS, DAY_MS)
    # day 0's end: s1 in grace (30 h), s2 refunded, s3 billing retry without grace: 1; day 1's end: s2 reversed
    assert [s["active"] for s in report["series"]] == [1, 1]
    assert report["totals"]["tests"] == 1 and report["totals"]["refundReversals"] == 1
    assert outcomes(records, WEEK, WEEK + 2 * DAY_MS, DAY_MS, "p")["totals"]["tests"] == 0


def test_the_week_exercises_every_metric():
    events = launch_week(100_000, WEEK)
    assert len(events) == 100_000
    records, seen = [], set()
    for event in events:
        if event.uuid not in seen:
            seen.add(event.uuid)
            records.append(record_of(event, *payloads(event)))
    assert len(events) - len(records) == round(100_000 * DUPLICATE_SHARE)
    totals = outcomes(records, WEEK, WEEK + 7 * DAY_MS, DAY_MS)["totals"]
    assert [m for m in METRICS if totals[m] == 0] == []
    history = [r for r in records if r["signedDate"] < WEEK]
    assert history, "the soft-launch cohort is history before the week"


def test_replay_through_flagserver_matches_the_truth(tmp_path):
    binary = os.environ.get("FLAGSERVER_BIN")
    if not binary:
        pytest.skip("FLAGSERVER_BIN is not set: the replay through a real flagserver needs its App Store receiver")
    script = os.path.join(os.path.dirname(__file__), "replay.py")
    result = subprocess.run([sys.executable, script, "--flagserver-bin", binary, "--count", "2000",
                             "--connections", "4", "--json", str(tmp_path / "summary.json")],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]


class StandIn:
    """A loopback stand-in for the receiver's HTTP shapes (docs/appstore.md), with no verification: it decodes the
    JWS unverified, stores by notificationUUID and answers outcomes with outcome_truth. It proves the replay's client
    side (keep-alive connections, duplicates, the comparison), not the server; `lose_every` makes it drop notifications
    so the comparison must fail."""

    def __init__(self, lose_every=0):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs, urlsplit
        from appstore_sign import decode_unverified
        import datetime
        self.records, self.lock, received = {}, threading.Lock(), [0]
        stand_in = self

        def ms(day):
            return int(datetime.datetime.strptime(day, "%Y-%m-%d").replace(
                tzinfo=datetime.timezone.utc).timestamp() * 1000)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def answer(self, status, value):
                body = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                payload = decode_unverified(json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                                            ["signedPayload"])
                data = payload["data"]
                t = decode_unverified(data["signedTransactionInfo"]) if "signedTransactionInfo" in data else {}
                r = decode_unverified(data["signedRenewalInfo"]) if "signedRenewalInfo" in data else {}
                record = {"notificationUUID": payload["notificationUUID"],
                          "notificationType": payload["notificationType"], "subtype": payload.get("subtype"),
                          "signedDate": payload["signedDate"], "productId": t.get("productId"),
                          "offerType": t.get("offerType"), "offerDiscountType": t.get("offerDiscountType"),
                          "expiresDate": t.get("expiresDate"),
                          "gracePeriodExpiresDate": r.get("gracePeriodExpiresDate"),
                          "subscription": t.get("originalTransactionId")}
                with stand_in.lock:
                    received[0] += 1
                    new = record["notificationUUID"] not in stand_in.records
                    if new and not (lose_every and received[0] % lose_every == 0):
                        stand_in.records[record["notificationUUID"]] = record
                self.answer(200, {"stored": new})

            def do_GET(self):
                query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                with stand_in.lock:
                    records = list(stand_in.records.values())
                report = outcomes(records, ms(query["from"]), ms(query["to"]), DAY_MS, query.get("product"))
                self.answer(200, {"metrics": METRICS, "series": report["series"], "totals": report["totals"]})

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.mark.parametrize("lose_every, exit_code", [(0, 0), (97, 1)])
def test_replay_client_against_a_stand_in(tmp_path, lose_every, exit_code):
    from appstore_ca import save_chain
    save_chain(make_chain(), str(tmp_path))
    stand_in = StandIn(lose_every)
    try:
        result = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "replay.py"),
                                 "--base-url", stand_in.url, "--token", "unused", "--chain", str(tmp_path),
                                 "--count", "1500", "--connections", "4", "--json", str(tmp_path / "s.json")],
                                capture_output=True, text=True, timeout=600)
    finally:
        stand_in.server.shutdown()
    assert result.returncode == exit_code, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["post"]["statuses"] == {"200": 1500}
    assert summary["post"]["stored"] == {"true": summary["unique"], "false": summary["duplicates"]}
    if exit_code:
        assert any("truth" in line for line in summary["differences"])
    else:
        assert len(stand_in.records) == summary["unique"] and summary["differences"] == []
