"""The launch week the replay sends: a deterministic (seeded) stream of App Store Server Notifications V2 as the
subscriptions of a newly paid app would produce them, and the known truth of the outcomes the plan defines.

The mix is documented in docs/appstore.md ("The launch-week replay"); the numbers below are that mix. Every
subscription's notifications have strictly increasing signedDates, so the order the outcomes are computed in
(signedDate, then notificationUUID) is the order they happened in. No notification is signed exactly on an hour.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from appstore_sign import DAY_MS

HOUR_MS = 3_600_000
MINUTE_MS = 60_000

# product -> period, full price (milliunits of EUR), the intro offers a new subscriber may start with (weight,
# offerType, offerDiscountType, offerPeriod, intro period length, intro periods, intro price, offerIdentifier)
PRODUCTS = {
    "symi.plus.monthly": dict(weight=55, period=30 * DAY_MS, price=4_990, offers=[
        (60, 1, "FREE_TRIAL", "P3D", 3 * DAY_MS, 1, 0, None),
        (10, 3, "PAY_UP_FRONT", "P1M", 30 * DAY_MS, 1, 2_990, "LAUNCH-FRIENDS"),
        (30, None, None, None, None, 0, None, None)]),
    "symi.plus.yearly": dict(weight=35, period=365 * DAY_MS, price=39_990, offers=[
        (50, 1, "FREE_TRIAL", "P1W", 7 * DAY_MS, 1, 0, None),
        (20, 1, "PAY_UP_FRONT", "P1Y", 365 * DAY_MS, 1, 29_990, None),
        (30, None, None, None, None, 0, None, None)]),
    "symi.plus.weekly": dict(weight=10, period=7 * DAY_MS, price=1_990, offers=[
        (50, 1, "PAY_AS_YOU_GO", "P1W", 7 * DAY_MS, 2, 990, None),
        (50, None, None, None, None, 0, None, None)]),
}
# Share of new subscriptions per day of the week (the launch spike, then a decay); the soft-launch cohort started in
# the 14 days before the week and is posted too: its notifications are history the week's counts depend on.
DAY_WEIGHTS = [30, 18, 14, 11, 10, 9, 8]
SOFT_LAUNCH_SHARE = 0.06
SOFT_LAUNCH_DAYS = 14
TESTS_PER_WEEK = 3
DUPLICATE_SHARE = 0.01


@dataclass
class Event:
    """One notification before signing: its payload parts as plain dicts (the signer builds the JWS from them)."""
    time: int
    notification_type: str
    subtype: Optional[str]
    original: Optional[str]
    transaction: Optional[dict] = None
    renewal: Optional[dict] = None
    uuid: str = ""


@dataclass
class Subscription:
    original: str
    product: str
    rng: random.Random
    horizon: int
    events: List[Event] = field(default_factory=list)
    now: int = 0
    transaction_counter: int = 0
    transaction: dict = field(default_factory=dict)
    auto_renew: int = 1
    price_increase: Optional[int] = None
    intro_left: int = 0
    intro: Optional[tuple] = None

    def at(self, time: int) -> Optional[int]:
        """A time after the previous event (strictly), never exactly on an hour; None beyond the horizon."""
        time = max(time, self.now + 1_000)
        if time % HOUR_MS == 0:
            time += 7
        if time >= self.horizon:
            return None
        self.now = time
        return time

    def emit(self, time: int, notification_type: str, subtype: Optional[str] = None, **renewal_extra) -> bool:
        when = self.at(time)
        if when is None:
            return False
        renewal = {"autoRenewStatus": self.auto_renew, "productId": self.product}
        if self.price_increase is not None:
            renewal["priceIncreaseStatus"] = self.price_increase
        renewal.update(renewal_extra)
        self.events.append(Event(when, notification_type, subtype, self.original, dict(self.transaction), renewal))
        return True

    def period(self, start: int, *, reason: str) -> None:
        """The transaction of a new period starting at `start` (an intro period while intro periods are left)."""
        spec = PRODUCTS[self.product]
        self.transaction_counter += 1
        transaction = {"productId": self.product, "purchaseDate": start, "transactionReason": reason,
                       "transactionId": f"{self.original}{self.transaction_counter:03d}",
                       "price": spec["price"], "expiresDate": start + spec["period"]}
        if self.intro is not None and self.intro_left > 0:
            _, offer_type, discount, offer_period, length, _, price, identifier = self.intro
            self.intro_left -= 1
            transaction.update(offerType=offer_type, offerDiscountType=discount, offerPeriod=offer_period,
                               price=price, expiresDate=start + length)
            if identifier:
                transaction["offerIdentifier"] = identifier
        self.transaction = transaction


def _weighted(rng: random.Random, items, weight=lambda item: item[0]):
    return rng.choices(items, weights=[weight(item) for item in items])[0]


def simulate(sub: Subscription, start: int, *, resubscribe: bool = False) -> None:
    """One subscription's notifications from its start to the horizon (see docs/appstore.md for the odds)."""
    rng = sub.rng
    spec = PRODUCTS[sub.product]
    sub.intro = None if resubscribe else _weighted(rng, spec["offers"])
    if sub.intro is not None and sub.intro[1] is None:
        sub.intro = None
    sub.intro_left = sub.intro[5] if sub.intro else 0
    sub.auto_renew, sub.price_increase = 1, None
    sub.period(start, reason="PURCHASE")
    if not sub.emit(start, "SUBSCRIBED", "RESUBSCRIBE" if resubscribe else "INITIAL_BUY"):
        return
    free_trial = sub.transaction.get("offerDiscountType") == "FREE_TRIAL"
    while True:
        end = sub.transaction["expiresDate"]
        paid = sub.transaction.get("price", 0) > 0
        # within the period (soon after its start, when people act): refunds and revocations end it, the renewal
        # switch, a promotional offer, a price rise
        def soon(margin: int = MINUTE_MS) -> int:
            return rng.randint(sub.now, max(sub.now, min(end - margin, sub.now + 4 * DAY_MS)))
        roll = rng.random()
        if paid and roll < 0.012:
            if not sub.emit(soon(), "REFUND", None):
                return
            sub.events[-1].transaction.update(revocationReason=rng.choice([0, 1]), revocationDate=sub.now)
            if rng.random() >= 0.25 or not sub.emit(sub.now + rng.randint(HOUR_MS, 2 * DAY_MS), "REFUND_REVERSED"):
                return
        elif paid and roll < 0.020:
            sub.emit(soon(), "REFUND_DECLINED", None)
        elif roll < 0.024:
            if sub.emit(soon(), "REVOKE", None):
                sub.events[-1].transaction.update(revocationReason=0, revocationDate=sub.now)
            return
        off_odds = 0.45 if free_trial and sub.transaction.get("offerType") == 1 else 0.10
        if rng.random() < off_odds:
            sub.auto_renew = 0
            sub.emit(soon(HOUR_MS), "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
            if rng.random() < 0.15:
                sub.auto_renew = 1
                sub.emit(soon(), "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED")
        if paid and sub.auto_renew and rng.random() < 0.02:
            sub.transaction.update(offerType=2, offerIdentifier="symi.stay.50", offerDiscountType="PAY_UP_FRONT")
            sub.emit(soon(), "OFFER_REDEEMED", None)
        if paid and sub.product != "symi.plus.yearly" and sub.auto_renew and rng.random() < 0.05:
            sub.price_increase = 0
            sub.emit(soon(HOUR_MS), "PRICE_INCREASE", "PENDING")
            if rng.random() < 0.6:
                sub.price_increase = 1
                sub.emit(soon(), "PRICE_INCREASE", "ACCEPTED")
        if sub.now >= sub.horizon or end >= sub.horizon:
            return
        # the period's end: expire, or bill
        if sub.auto_renew == 0:
            if not sub.emit(end + rng.randint(MINUTE_MS, 30 * MINUTE_MS), "EXPIRED", "VOLUNTARY", expirationIntent=1):
                return
            if rng.random() < 0.12:
                simulate(sub, sub.now + rng.randint(HOUR_MS, 3 * DAY_MS), resubscribe=True)
            return
        if sub.price_increase == 0:
            sub.auto_renew = 0
            sub.emit(end + rng.randint(MINUTE_MS, 30 * MINUTE_MS), "EXPIRED", "PRICE_INCREASE", expirationIntent=3)
            return
        if sub.product == "symi.plus.weekly" and rng.random() < 0.03:
            sub.auto_renew = 0
            sub.emit(end + rng.randint(MINUTE_MS, 30 * MINUTE_MS), "EXPIRED", "PRODUCT_NOT_FOR_SALE",
                     expirationIntent=4)
            return
        if rng.random() < 0.86:
            sub.price_increase = None if sub.price_increase == 1 else sub.price_increase
            sub.period(end, reason="RENEWAL")
            if not sub.emit(end + rng.randint(MINUTE_MS, 20 * MINUTE_MS), "DID_RENEW", None):
                return
            continue
        # a billing problem: with a 3-day grace period (access kept) or straight into billing retry
        grace = rng.random() < 0.5
        extra = {"isInBillingRetryPeriod": True, "expirationIntent": 2}
        if grace:
            extra["gracePeriodExpiresDate"] = end + 3 * DAY_MS
        if not sub.emit(end + rng.randint(MINUTE_MS, 20 * MINUTE_MS), "DID_FAIL_TO_RENEW",
                        "GRACE_PERIOD" if grace else None, **extra):
            return
        window_end = end + (3 if grace else 2) * DAY_MS
        if rng.random() < 0.55:
            recovered_at = rng.randint(sub.now + MINUTE_MS, window_end - HOUR_MS)
            sub.period(recovered_at, reason="RENEWAL")
            if not sub.emit(recovered_at, "DID_RENEW", "BILLING_RECOVERY"):
                return
            continue
        if grace:
            sub.emit(window_end + rng.randint(MINUTE_MS, 30 * MINUTE_MS), "GRACE_PERIOD_EXPIRED", None,
                     isInBillingRetryPeriod=True, expirationIntent=2)
        else:
            sub.auto_renew = 0
            sub.emit(window_end + rng.randint(MINUTE_MS, 30 * MINUTE_MS), "EXPIRED", "BILLING_RETRY",
                     isInBillingRetryPeriod=False, expirationIntent=2)
        return


def launch_week(count: int, week_start: int, seed: int = 37) -> List[Event]:
    """`count` notifications (duplicates included): the soft-launch cohort's and the week's, in signedDate order,
    each duplicate right after its original's neighbours (Apple resends until it gets a 200)."""
    rng = random.Random(seed)
    horizon = week_start + 7 * DAY_MS
    unique_target = count - round(count * DUPLICATE_SHARE)
    events: List[Event] = []
    serial = 3_000_000_000
    for i in range(TESTS_PER_WEEK):
        at = week_start + (2 * i + 1) * DAY_MS + 10 * HOUR_MS + 1_234
        events.append(Event(at, "TEST", None, None))
    while len(events) < unique_target:
        serial += 1
        product = _weighted(rng, list(PRODUCTS), weight=lambda p: PRODUCTS[p]["weight"])
        sub = Subscription(str(serial), product, random.Random(rng.random()), horizon)
        if rng.random() < SOFT_LAUNCH_SHARE:
            start = week_start - rng.randint(1, SOFT_LAUNCH_DAYS * DAY_MS)
        else:
            day = _weighted(rng, list(range(7)), weight=lambda d: DAY_WEIGHTS[d])
            start = week_start + day * DAY_MS + rng.randint(1, DAY_MS - 1)
        simulate(sub, start)
        events.extend(sub.events)
    events.sort(key=lambda e: e.time)
    events = events[:unique_target]
    for event in events:
        event.uuid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    duplicates = rng.sample(range(len(events)), count - unique_target)
    ordered: List[Event] = []
    duplicate_of = set(duplicates)
    for index, event in enumerate(events):
        ordered.append(event)
        if index - 5 in duplicate_of:
            ordered.append(events[index - 5])
    # duplicates whose original was among the last five are sent at the end
    tail = [events[i] for i in duplicates if i + 5 >= len(events)]
    ordered.extend(tail)
    return ordered
