"""The case table of the App Store peer test: good notifications and every tampered form, each with the verdict
Apple's app-store-server-library must give (asserted, so a case that stops testing what it names fails) and the
reason codes of the project's receiver (docs/appstore.md, AppStoreVerificationError.Reason) that name the defect.
"""

from __future__ import annotations

import datetime
import time
import uuid
from dataclasses import dataclass, field
from typing import FrozenSet, List, Optional

from appstore_ca import INTERMEDIATE_MARKER_OID, LEAF_MARKER_OID, Chain, make_chain, make_root
from appstore_sign import (APP_APPLE_ID, BUNDLE_ID, DAY_MS, Signer, alg_hs256, alg_none, chain_out_of_order,
                           edit_payload, flip_signature_byte, notification, renewal_info, short_chain,
                           transaction_info)

OK = "OK"


@dataclass
class Case:
    name: str
    signed_payload: str
    apple_status: str                    # VerificationStatus name Apple's library must give, or "OK"
    project_codes: FrozenSet[str] = frozenset()   # reason codes naming the defect; empty for accepted cases
    original_transaction_id: Optional[str] = None
    note: str = ""
    apple_cause: str = ""                # text of the exception under Apple's VerificationException: the refusal's cause

    @property
    def accepted(self) -> bool:
        return self.apple_status == OK


@dataclass
class World:
    """The trusted chain (its root is the one configured) and the cases signed with it and its broken siblings."""
    chain: Chain
    cases: List[Case] = field(default_factory=list)

    def case(self, name: str) -> Case:
        return next(c for c in self.cases if c.name == name)


def _dt(ms: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)


def build_world() -> World:
    now = (int(time.time()) - 600) * 1000      # ten minutes ago: a signedDate in the past
    trusted = make_chain()
    root = trusted.root
    window_ended = (_dt(now - 800 * DAY_MS), _dt(now - 400 * DAY_MS))
    window_future = (_dt(now + DAY_MS), _dt(now + 400 * DAY_MS))
    old = now - 30 * DAY_MS                    # a notification signed while a since-expired leaf was valid
    chains = {
        "trusted": trusted,
        "leaf_expired": make_chain(root, leaf_window=window_ended),
        "leaf_not_yet_valid": make_chain(root, leaf_window=window_future),
        "intermediate_expired": make_chain(root, intermediate_window=window_ended),
        "leaf_marker_missing": make_chain(root, leaf_marker=False),
        "intermediate_marker_missing": make_chain(root, intermediate_marker=False),
        "another_root": make_chain(make_root("Symi Other Root CA")),
        "leaf_expired_since": make_chain(root, leaf_window=(_dt(old - DAY_MS), _dt(old + DAY_MS))),
    }
    good = Signer(trusted)
    world = World(trusted)
    counter = iter(range(2_000_000_101, 2_000_000_999))

    def add(name, payload_type, subtype, *, apple=OK, codes=(), environment="Production", signed=now,
            signer=good, nested_signer=None, wrap=None, transaction_edit=None, renewal=None, app_apple_id=APP_APPLE_ID,
            bundle_id=BUNDLE_ID, nested_environment=None, nested_bundle_id=None, product="symi.plus.yearly",
            kind="intro", note="", cause="", **extra):
        original = None
        signed_transaction = signed_renewal = None
        if payload_type != "TEST":
            original = str(next(counter))
            offer = dict(offer_type=1, offer_discount_type="FREE_TRIAL", offer_period="P1W", price=0) \
                if kind == "intro" else dict(transaction_reason="RENEWAL")
            offer.update({k: v for k, v in extra.items() if k in ("revocation_reason", "offer_type",
                                                                  "offer_identifier", "price")})
            transaction = transaction_info(original_transaction_id=original, transaction_id=str(int(original) + 500),
                                           product_id=product, purchase_date=signed - 1000,
                                           expires_date=signed + 7 * DAY_MS, signed_date=signed,
                                           environment=nested_environment or environment,
                                           bundle_id=nested_bundle_id or bundle_id, **offer)
            renewal_fields = dict(renewal or {})
            info = renewal_info(original_transaction_id=original, product_id=product, signed_date=signed,
                                environment=nested_environment or environment, renewal_date=signed + 7 * DAY_MS,
                                **renewal_fields)
            nested = nested_signer or signer
            signed_transaction = nested.sign(transaction)
            if transaction_edit is not None:
                signed_transaction = edit_payload(signed_transaction, transaction_edit)
            signed_renewal = nested.sign(info)
        payload = notification(notification_type=payload_type, subtype=subtype, signed_date=signed,
                               environment=environment, bundle_id=bundle_id, app_apple_id=app_apple_id,
                               signed_transaction_info=signed_transaction, signed_renewal_info=signed_renewal,
                               status=None if payload_type == "TEST" else 1,
                               notification_uuid=str(uuid.uuid4()))
        token = wrap(payload) if wrap is not None else signer.sign(payload)
        world.cases.append(Case(name, token, apple, frozenset(codes), original, note, cause))

    # accepted: the forms the receiver must store, with every stored field set somewhere
    add("subscribed_intro_free_trial", "SUBSCRIBED", "INITIAL_BUY")
    add("did_renew", "DID_RENEW", None, kind="paid", price=4_990)
    add("test", "TEST", None)
    add("sandbox_auto_renew_disabled", "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", environment="Sandbox",
        kind="paid", renewal={"auto_renew_status": 0})
    add("sandbox_other_app_apple_id", "DID_RENEW", None, environment="Sandbox", kind="paid",
        app_apple_id=APP_APPLE_ID + 1, note="Apple checks appAppleId in Production only")
    add("billing_problem_grace", "DID_FAIL_TO_RENEW", "GRACE_PERIOD", kind="paid",
        renewal={"is_in_billing_retry_period": True, "grace_period_expires_date": now + 16 * DAY_MS,
                 "expiration_intent": 2})
    add("expired_voluntary", "EXPIRED", "VOLUNTARY", kind="paid",
        renewal={"auto_renew_status": 0, "expiration_intent": 1})
    add("refund", "REFUND", None, kind="paid", revocation_reason=0)
    add("price_increase_accepted", "PRICE_INCREASE", "ACCEPTED", kind="paid", renewal={"price_increase_status": 1})
    add("offer_redeemed", "OFFER_REDEEMED", "UPGRADE", kind="paid", offer_type=3, offer_identifier="SYMI-WINTER")
    add("leaf_valid_at_signed_date_expired_now", "DID_RENEW", None, kind="paid", signed=old,
        signer=Signer(chains["leaf_expired_since"]), note="validity is checked at signedDate, not now")

    # refused: the tampered forms, each alone
    base = dict(kind="paid")
    add("flipped_signature_byte", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="Signature verification failed", codes={"invalid_signature"},
        wrap=lambda p: flip_signature_byte(good.sign(p)), **base)
    add("chain_out_of_order", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="1.2.840.113635.100.6.11.1",
        codes={"invalid_chain", "missing_marker", "invalid_signature"},
        wrap=lambda p: chain_out_of_order(p, trusted), **base)
    add("chain_of_two", "DID_RENEW", None, apple="INVALID_CHAIN_LENGTH", codes={"invalid_chain", "invalid_jws"},
        wrap=lambda p: short_chain(p, trusted), **base)
    for name, cause in (("leaf_expired", "certificate has expired"), ("leaf_not_yet_valid", "not yet valid"),
                        ("intermediate_expired", "certificate has expired")):
        add(name, "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause=cause,
            codes={"certificate_not_valid_at_signed_date"}, signer=Signer(chains[name]), **base)
    for name, oid in (("leaf_marker_missing", LEAF_MARKER_OID), ("intermediate_marker_missing", INTERMEDIATE_MARKER_OID)):
        add(name, "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause=oid, codes={"missing_marker"},
            signer=Signer(chains[name]), **base)
    add("another_root", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="unable to get local issuer certificate", codes={"invalid_chain"},
        signer=Signer(chains["another_root"]), **base)
    add("alg_none", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="Algorithm was not ES256", codes={"unsupported_algorithm"},
        wrap=lambda p: alg_none(p, trusted), **base)
    add("alg_hs256", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="Algorithm was not ES256", codes={"unsupported_algorithm"},
        wrap=lambda p: alg_hs256(p, trusted), **base)
    add("wrong_bundle_id", "DID_RENEW", None, apple="INVALID_APP_IDENTIFIER", codes={"wrong_bundle_id"},
        bundle_id="app.symi.other", **base)
    add("wrong_app_apple_id", "DID_RENEW", None, apple="INVALID_APP_IDENTIFIER", codes={"wrong_app_apple_id"},
        app_apple_id=APP_APPLE_ID + 1, **base)
    add("wrong_environment", "DID_RENEW", None, apple="INVALID_ENVIRONMENT", codes={"wrong_environment"},
        environment="Xcode", **base)
    add("payload_edited_after_signing", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="Signature verification failed", codes={"invalid_signature"},
        wrap=lambda p: edit_payload(good.sign(p), lambda d: d.update(notificationType="REFUND")), **base)
    add("nested_transaction_other_chain", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="unable to get local issuer certificate", codes={"invalid_chain"},
        nested_signer=Signer(chains["another_root"]), note="the outer JWS is good", **base)
    add("nested_transaction_edited", "DID_RENEW", None, apple="VERIFICATION_FAILURE", cause="Signature verification failed", codes={"invalid_signature"},
        transaction_edit=lambda d: d.update(price=1), note="the outer JWS is good", **base)
    add("nested_transaction_wrong_bundle_id", "DID_RENEW", None, apple="INVALID_APP_IDENTIFIER",
        codes={"wrong_bundle_id"}, nested_bundle_id="app.symi.other", note="the outer JWS is good", **base)
    add("nested_environment_differs", "DID_RENEW", None, apple="INVALID_ENVIRONMENT", codes={"wrong_environment"},
        nested_environment="Sandbox", note="outer Production, nested Sandbox", **base)
    return world


# Every refusal reason of the plan's AppStoreVerificationError.Reason.
REASON_CODES = frozenset((
    "invalid_json", "invalid_jws", "unsupported_algorithm", "invalid_signature", "invalid_chain",
    "certificate_not_valid_at_signed_date", "missing_marker", "wrong_bundle_id", "wrong_app_apple_id",
    "wrong_environment", "invalid_payload", "invalid_root_certificate"))
