"""The outcome metrics of the plan (docs/appstore.md, "Reading the outcomes"), computed independently of the server
from the records a replay sent: the known truth the server's GET /v1/appstore/outcomes must equal.

A record here is a dict with the stored fields the definitions read: notificationUUID, notificationType, subtype,
signedDate, productId, offerType, offerDiscountType, expiresDate, gracePeriodExpiresDate, subscription.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional

METRICS = ["started", "initialBuys", "resubscribes", "introStarts", "freeTrialStarts", "introConversions",
           "freeTrialConversions", "renewals", "autoRenewOff", "autoRenewOn", "billingProblems",
           "billingProblemsWithGrace", "billingProblemsWithoutGrace", "recovered", "expired", "expiredVoluntary",
           "expiredBillingRetry", "expiredPriceIncrease", "expiredProductNotForSale", "gracePeriodExpired", "refunds",
           "refundsDeclined", "refundReversals", "revocations", "priceIncreaseAccepted", "priceIncreasePending",
           "offerRedemptions", "tests", "active"]
# A subscription whose latest notification is one of these has no access, whatever its dates say.
ENDING_TYPES = {"EXPIRED", "GRACE_PERIOD_EXPIRED", "REFUND", "REVOKE"}
EXPIRED_SUBTYPES = {"VOLUNTARY": "expiredVoluntary", "BILLING_RETRY": "expiredBillingRetry",
                    "PRICE_INCREASE": "expiredPriceIncrease", "PRODUCT_NOT_FOR_SALE": "expiredProductNotForSale"}
SIMPLE = {("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"): "autoRenewOff",
          ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"): "autoRenewOn",
          ("PRICE_INCREASE", "ACCEPTED"): "priceIncreaseAccepted", ("PRICE_INCREASE", "PENDING"): "priceIncreasePending"}
BY_TYPE = {"REFUND": "refunds", "REFUND_DECLINED": "refundsDeclined", "REFUND_REVERSED": "refundReversals",
           "REVOKE": "revocations", "OFFER_REDEEMED": "offerRedemptions", "TEST": "tests"}


def zero() -> Dict[str, int]:
    return {metric: 0 for metric in METRICS}


def metrics_of(record: dict, pending_intro: Dict[str, tuple]) -> List[str]:
    """The counted metrics one record adds (in signedDate order; `pending_intro` carries, per subscription, whether
    its last start was an intro / free-trial start still waiting for its first paid renewal)."""
    kind, subtype, sub = record["notificationType"], record.get("subtype"), record.get("subscription")
    hits: List[str] = []
    if kind == "SUBSCRIBED" and subtype in ("INITIAL_BUY", "RESUBSCRIBE"):
        hits += ["started", "initialBuys" if subtype == "INITIAL_BUY" else "resubscribes"]
        intro = record.get("offerType") == 1
        free = intro and record.get("offerDiscountType") == "FREE_TRIAL"
        if intro:
            hits.append("introStarts")
        if free:
            hits.append("freeTrialStarts")
        if sub is not None:
            if intro:
                pending_intro[sub] = (True, free)
            else:
                pending_intro.pop(sub, None)
    elif kind == "DID_RENEW":
        hits.append("renewals")
        if subtype == "BILLING_RECOVERY":
            hits.append("recovered")
        if record.get("offerType") != 1 and sub in pending_intro:
            _, free = pending_intro.pop(sub)
            hits.append("introConversions")
            if free:
                hits.append("freeTrialConversions")
    elif kind == "DID_FAIL_TO_RENEW":
        hits += ["billingProblems", "billingProblemsWithGrace" if subtype == "GRACE_PERIOD"
                 else "billingProblemsWithoutGrace"]
    elif kind == "EXPIRED":
        hits.append("expired")
        if subtype in EXPIRED_SUBTYPES:
            hits.append(EXPIRED_SUBTYPES[subtype])
    elif kind == "GRACE_PERIOD_EXPIRED":
        hits += ["expired", "gracePeriodExpired"]
    elif (kind, subtype) in SIMPLE:
        hits.append(SIMPLE[(kind, subtype)])
    elif kind in BY_TYPE:
        hits.append(BY_TYPE[kind])
    return hits


def has_access(record: dict, at: int) -> bool:
    if record["notificationType"] in ENDING_TYPES:
        return False
    expires, grace = record.get("expiresDate"), record.get("gracePeriodExpiresDate")
    return (expires is not None and expires > at) or (grace is not None and grace > at)


def outcomes(records: Iterable[dict], start: int, end: int, bucket_ms: int,
             product: Optional[str] = None) -> dict:
    """Counts per bucket of [start, end) (bucket-aligned), their totals, and `active` at each bucket's end.
    Every record (before `start` too) is history; only those in the range are counted."""
    history = sorted((r for r in records if r["signedDate"] < end and (product is None or r.get("productId") == product)),
                     key=lambda r: (r["signedDate"], r["notificationUUID"]))
    buckets = list(range(start, end, bucket_ms))
    series = [zero() for _ in buckets]
    totals = zero()
    pending_intro: Dict[str, tuple] = {}
    latest: Dict[str, dict] = {}
    index = 0
    for position, bucket_start in enumerate(buckets):
        bucket_end = bucket_start + bucket_ms
        while index < len(history) and history[index]["signedDate"] <= bucket_end:
            record = history[index]
            index += 1
            hits = metrics_of(record, pending_intro)
            if record.get("subscription") is not None:
                latest[record["subscription"]] = record
            if start <= record["signedDate"] < end:
                where = (record["signedDate"] - start) // bucket_ms
                for metric in hits:
                    series[where][metric] += 1
                    totals[metric] += 1
        series[position]["active"] = sum(1 for r in latest.values() if has_access(r, bucket_end))
    totals["active"] = series[-1]["active"] if series else 0
    return {"buckets": buckets, "series": series, "totals": totals}
