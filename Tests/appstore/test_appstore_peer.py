"""Apple's own app-store-server-library as the independent peer of flagserver's App Store receiver.

Every case of appstore_cases.py (good notifications and each tampered form of the issue's list) is verified by
Apple's `SignedDataVerifier` (online checks off, the throw-away root), the nested signedTransactionInfo and
signedRenewalInfo too, as the receiver verifies them. The library is configured for ONE environment, so there is one
verifier per configured environment and a notification is Apple-accepted when its own environment's verifier accepts
it (the other one refuses it by construction).

When FLAGSERVER_BIN names a flagserver binary, the same cases are POSTed to a real flagserver
(/v1/appstore/notifications) started with the same root, bundle id, app id and environments (on a new SQLite file, or
on the empty PostgreSQL database APPSTORE_PEER_DATABASE names): it must answer 200
exactly for the cases Apple accepts, 400 with a reason code naming the defect for the others, store nothing it
refused, and keep, for what it accepted, the same fields Apple's library decoded (and never appAccountToken).
The verdict table is printed at the end of the run (conftest.py).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Optional

import pytest
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

from appstore_cases import OK, REASON_CODES, Case, build_world
from appstore_sign import APP_APPLE_ID, BUNDLE_ID, DAY_MS, Signer, decode_unverified, notification
from flagserver_process import FlagServer, error_code, request

WORLD = build_world()
CASES = {case.name: case for case in WORLD.cases}
ENVIRONMENTS = ("Production", "Sandbox")
VERIFIERS = {name: SignedDataVerifier(root_certificates=[WORLD.chain.root_der], enable_online_checks=False,
                                      environment=Environment(name), bundle_id=BUNDLE_ID, app_apple_id=APP_APPLE_ID)
             for name in ENVIRONMENTS}
# name -> {"apple": status, "http": status, "code": reason}: the table conftest.py prints.
TABLE: Dict[str, Dict[str, Any]] = {}


@dataclass
class AppleVerdict:
    status: str
    cause: str = ""
    notification: Any = None
    transaction: Any = None
    renewal: Any = None


def apple_verdict(signed_payload: str) -> AppleVerdict:
    try:
        claimed = decode_unverified(signed_payload).get("data", {}).get("environment")
    except (ValueError, IndexError, AttributeError):
        claimed = None
    verifier = VERIFIERS.get(claimed, VERIFIERS["Production"])
    try:
        decoded = verifier.verify_and_decode_notification(signed_payload)
        data = decoded.data
        transaction = renewal = None
        if data is not None and data.signedTransactionInfo is not None:
            transaction = verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo)
        if data is not None and data.signedRenewalInfo is not None:
            renewal = verifier.verify_and_decode_renewal_info(data.signedRenewalInfo)
        return AppleVerdict(OK, "", decoded, transaction, renewal)
    except VerificationException as error:
        return AppleVerdict(error.status.name, str(error.__cause__ or ""))


# --- Apple's half: runs everywhere -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_apple_library_verdict(name):
    case = CASES[name]
    verdict = apple_verdict(case.signed_payload)
    TABLE.setdefault(name, {})["apple"] = verdict.status
    assert verdict.status == case.apple_status, f"{name}: Apple's library says {verdict.status}"
    if case.accepted:
        other = next(v for env, v in VERIFIERS.items() if env != verdict.notification.data.rawEnvironment)
        with pytest.raises(VerificationException):
            other.verify_and_decode_notification(case.signed_payload)
    else:
        assert case.apple_cause in verdict.cause, f"{name}: refused for another cause: {verdict.cause}"
        assert case.project_codes <= REASON_CODES, f"{name}: expected codes must be the plan's reasons"


def test_apple_decodes_what_was_signed():
    verdict = apple_verdict(CASES["subscribed_intro_free_trial"].signed_payload)
    assert verdict.notification.rawNotificationType == "SUBSCRIBED"
    assert verdict.notification.rawSubtype == "INITIAL_BUY"
    assert verdict.transaction.rawOfferType == 1 and verdict.transaction.rawOfferDiscountType == "FREE_TRIAL"
    assert verdict.transaction.price == 0 and verdict.transaction.currency == "EUR"
    assert verdict.transaction.appAccountToken is not None, "the cases carry an appAccountToken to be dropped"
    assert verdict.renewal.rawAutoRenewStatus == 1


def test_a_good_case_turns_bad_when_its_only_defect_is_added():
    """Guards the table itself: the good notification verifies, the same one with a flipped byte does not."""
    from appstore_sign import flip_signature_byte
    token = CASES["did_renew"].signed_payload
    assert apple_verdict(token).status == OK
    assert apple_verdict(flip_signature_byte(token)).status != OK


# --- flagserver's half: needs FLAGSERVER_BIN and the receiver ----------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    binary = os.environ.get("FLAGSERVER_BIN")
    if not binary:
        pytest.skip("FLAGSERVER_BIN is not set: only Apple's library was checked (set it to a flagserver binary "
                    "built with the App Store receiver to compare the two)")
    root_pem, _ = WORLD.chain.write_root(str(tmp_path_factory.mktemp("root")))
    process = FlagServer(binary, root_pem, BUNDLE_ID, APP_APPLE_ID, ENVIRONMENTS,
                         database=os.environ.get("APPSTORE_PEER_DATABASE")).start()
    yield process
    process.stop()


def post(server: FlagServer, signed_payload: str):
    return request(server.url + "/v1/appstore/notifications", "POST",
                   json.dumps({"signedPayload": signed_payload}).encode())


def iso(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def stored(server: FlagServer) -> Dict[str, Dict[str, Any]]:
    """Every stored notification of the last 60 days, by notificationUUID (the cases are signed within 31)."""
    now = int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000)
    status, body = request(f"{server.url}/v1/appstore/notifications?from={iso(now - 60 * DAY_MS)}"
                           f"&to={iso(now + DAY_MS)}&limit=10000", token=server.token)
    assert status == 200, body
    assert b"appAccountToken" not in body and b"7e3fb20b-4cdb-47cc-936d-99d65f608138" not in body
    records = json.loads(body)["notifications"]
    uuids = [r["notificationUUID"] for r in records]
    assert len(uuids) == len(set(uuids)), "a notificationUUID is stored once"
    return {r["notificationUUID"]: r for r in records}


def as_ms(value) -> Optional[int]:
    """A time of the API: RFC 3339 (with or without milliseconds) or milliseconds since 1970."""
    if value is None or isinstance(value, int):
        return value
    text = value.replace("Z", "+00:00")
    return int(round(datetime.datetime.fromisoformat(text).timestamp() * 1000))


@pytest.mark.parametrize("name", list(CASES))
def test_flagserver_agrees_with_apple(server, name):
    case = CASES[name]
    apple = apple_verdict(case.signed_payload)
    status, body = post(server, case.signed_payload)
    row = TABLE.setdefault(name, {})
    row.update(apple=apple.status, http=status, code=None if status == 200 else error_code(body))
    uuid_sent = decode_unverified(case.signed_payload)["notificationUUID"]
    if apple.status == OK:
        assert status == 200, f"{name}: Apple accepts, flagserver answered {status} {body!r}"
        assert json.loads(body) == {"stored": True}
        return
    assert status == 400, f"{name}: Apple refuses ({apple.status}), flagserver answered {status} {body!r}"
    assert row["code"] in case.project_codes, f"{name}: reason {row['code']}, want one of {sorted(case.project_codes)}"
    assert uuid_sent not in stored(server), f"{name}: refused but stored"


def test_flagserver_stores_what_apple_decoded(server):
    for case in WORLD.cases:
        if case.accepted:
            status, _ = post(server, case.signed_payload)      # stored now, or already by the test above
            assert status == 200
    records = stored(server)
    subscriptions = {}
    for case in (c for c in WORLD.cases if c.accepted):
        apple = apple_verdict(case.signed_payload)
        n, t, r = apple.notification, apple.transaction, apple.renewal
        record = records.get(n.notificationUUID)
        assert record is not None, f"{case.name}: accepted but not stored"
        want = {"notificationType": n.rawNotificationType, "subtype": n.rawSubtype,
                "signedDate": n.signedDate, "environment": n.data.rawEnvironment,
                "productId": t and t.productId, "offerType": t and t.rawOfferType,
                "offerIdentifier": t and t.offerIdentifier, "offerDiscountType": t and t.rawOfferDiscountType,
                "price": t and t.price, "currency": t and t.currency, "storefront": t and t.storefront,
                "transactionReason": t and t.rawTransactionReason, "expiresDate": t and t.expiresDate,
                "revocationReason": t and t.rawRevocationReason,
                "expirationIntent": r and r.rawExpirationIntent, "priceIncreaseStatus": r and r.rawPriceIncreaseStatus,
                "autoRenewStatus": r and r.rawAutoRenewStatus, "isInBillingRetryPeriod": r and r.isInBillingRetryPeriod,
                "gracePeriodExpiresDate": r and r.gracePeriodExpiresDate}
        got = {key: record.get(key) for key in want}
        for key in ("signedDate", "expiresDate", "gracePeriodExpiresDate"):
            got[key] = as_ms(got[key])
        assert got == want, f"{case.name}: stored differs from Apple's decoding"
        if t is None:
            assert record["subscription"] is None, f"{case.name}: no transaction, no subscription"
        else:
            assert re.fullmatch(r"[0-9a-f]{64}", record["subscription"] or ""), record["subscription"]
            assert record["subscription"] != t.originalTransactionId
            assert t.originalTransactionId not in json.dumps(record)
            subscriptions.setdefault(record["subscription"], set()).add(t.originalTransactionId)
    assert all(len(originals) == 1 for originals in subscriptions.values()), "one hash, one subscription"
    assert len(subscriptions) == sum(1 for c in WORLD.cases if c.accepted and c.name != "test")
    # Nor on disk: the database and its WAL hold neither the appAccountToken nor an originalTransactionId.
    if not server.is_sqlite:
        return
    on_disk = b"".join(open(server.database + suffix, "rb").read() for suffix in ("", "-wal")
                       if suffix == "" or os.path.exists(server.database + suffix))
    assert b"7e3fb20b-4cdb-47cc-936d-99d65f608138" not in on_disk
    for originals in subscriptions.values():
        for original in originals:
            assert original.encode() not in on_disk, f"originalTransactionId {original} is in the database file"


def test_flagserver_stores_a_duplicate_once(server):
    signer = Signer(WORLD.chain)
    now = int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000) - 60_000
    token = signer.sign(notification(notification_type="TEST", subtype=None, signed_date=now, status=None,
                                     notification_uuid=str(uuid.uuid4())))
    first, second = post(server, token), post(server, token)
    assert (first[0], json.loads(first[1])) == (200, {"stored": True})
    assert (second[0], json.loads(second[1])) == (200, {"stored": False})
    uuid_sent = decode_unverified(token)["notificationUUID"]
    assert uuid_sent in stored(server)        # stored() asserts every UUID appears once


def test_flagserver_refuses_bad_json_and_stores_nothing(server):
    before = len(stored(server))
    for body in (b"{", b'{"signedPayload": 7}', b"[]", b'{"signedPayload": "a.b"}'):
        status, answer = request(server.url + "/v1/appstore/notifications", "POST", body)
        assert status == 400, (body, status, answer)
        assert error_code(answer) in REASON_CODES, answer
    assert len(stored(server)) == before


def test_flagserver_refuses_a_body_over_64_kib_on_the_head(server):
    """Apple's notifications are a few KiB; a head announcing more than 64 KiB is answered 413 before any body byte
    is sent (a server that waited for the body would time this request out)."""
    import http.client
    import urllib.parse
    target = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    conn.putrequest("POST", "/v1/appstore/notifications")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(65_537))
    conn.endheaders()
    response = conn.getresponse()
    assert (response.status, error_code(response.read())) == (413, "body_too_large")
    conn.close()
    ok_status, _ = post(server, CASES["test"].signed_payload)
    assert ok_status == 200, "a refused body leaves the receiver working"
