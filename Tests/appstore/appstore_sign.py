#!/usr/bin/env python3
"""JWS signing (ES256 with an x5c chain) and payload builders for App Store Server Notifications V2, plus the
tampered forms a verifier must refuse.

Apple signs `signedPayload`, `signedTransactionInfo` and `signedRenewalInfo` as compact JWS (RFC 7515) with
`alg` ES256 and the certificate chain in `x5c`; the signature is raw r||s, 32 bytes each (RFC 7518 §3.4).
Shapes follow Apple's documentation of ResponseBodyV2DecodedPayload, JWSTransactionDecodedPayload and
JWSRenewalInfoDecodedPayload (the models of app-store-server-library).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from typing import Any, Callable, Optional

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from appstore_ca import Chain

BUNDLE_ID = "app.symi.journal"
APP_APPLE_ID = 6450000001


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def es256(key: ec.EllipticCurvePrivateKey, data: bytes) -> bytes:
    """Raw r||s (RFC 7518 §3.4): cryptography gives DER, JWS wants two 32-byte big-endian integers."""
    r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


class Signer:
    """Signs payloads with one chain's leaf; the header is encoded once (the replay signs hundreds of thousands)."""

    def __init__(self, chain: Chain, x5c: Optional[list] = None, alg: str = "ES256"):
        self.chain = chain
        self.header = {"alg": alg, "x5c": x5c if x5c is not None else chain.x5c()}
        self._encoded_header = b64url(_json(self.header))

    def sign(self, payload: dict) -> str:
        signing_input = self._encoded_header + "." + b64url(_json(payload))
        return signing_input + "." + b64url(es256(self.chain.leaf.key, signing_input.encode()))


def sign(payload: dict, chain: Chain) -> str:
    return Signer(chain).sign(payload)


# --- tampered forms ---------------------------------------------------------------------------------------------

def flip_signature_byte(jws: str, index: int = 10) -> str:
    """The same token with one byte of the decoded signature flipped (flipping a base64url character could touch
    only padding bits)."""
    head, payload, signature = jws.split(".")
    raw = bytearray(b64url_decode(signature))
    raw[index] ^= 0x01
    return f"{head}.{payload}.{b64url(bytes(raw))}"


def chain_out_of_order(payload: dict, chain: Chain) -> str:
    """Signed by the leaf, but x5c lists intermediate, leaf, root."""
    leaf, intermediate, root = chain.x5c()
    return Signer(chain, x5c=[intermediate, leaf, root]).sign(payload)


def short_chain(payload: dict, chain: Chain) -> str:
    """x5c with leaf and intermediate only (Apple's library wants exactly three)."""
    return Signer(chain, x5c=chain.x5c()[:2]).sign(payload)


def alg_none(payload: dict, chain: Chain) -> str:
    """`alg` none with an empty signature (RFC 7519 §6.1): an unsecured JWS."""
    head = b64url(_json({"alg": "none", "x5c": chain.x5c()}))
    return f"{head}.{b64url(_json(payload))}."


def alg_hs256(payload: dict, chain: Chain) -> str:
    """`alg` HS256 keyed with the leaf's public key PEM: the classic key-confusion forgery a verifier that picks
    the algorithm from the header would accept."""
    head = b64url(_json({"alg": "HS256", "x5c": chain.x5c()}))
    signing_input = f"{head}.{b64url(_json(payload))}"
    key = chain.leaf.certificate.public_key().public_bytes(serialization.Encoding.PEM,
                                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return signing_input + "." + b64url(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())


def edit_payload(jws: str, edit: Callable[[dict], None]) -> str:
    """The token with its payload decoded, changed by `edit`, encoded again; the old signature kept."""
    head, payload, signature = jws.split(".")
    decoded = json.loads(b64url_decode(payload))
    edit(decoded)
    return f"{head}.{b64url(_json(decoded))}.{signature}"


def decode_unverified(jws: str) -> dict:
    return json.loads(b64url_decode(jws.split(".")[1]))


# --- payload builders -------------------------------------------------------------------------------------------

DAY_MS = 86_400_000


def transaction_info(*, original_transaction_id: str, transaction_id: str, product_id: str, purchase_date: int,
                     expires_date: int, signed_date: int, environment: str = "Production",
                     bundle_id: str = BUNDLE_ID, original_purchase_date: Optional[int] = None,
                     offer_type: Optional[int] = None, offer_identifier: Optional[str] = None,
                     offer_discount_type: Optional[str] = None, offer_period: Optional[str] = None,
                     price: int = 4_990, currency: str = "EUR", storefront: str = "DEU",
                     transaction_reason: str = "PURCHASE", revocation_reason: Optional[int] = None,
                     revocation_date: Optional[int] = None,
                     app_account_token: Optional[str] = "7e3fb20b-4cdb-47cc-936d-99d65f608138") -> dict:
    """JWSTransactionDecodedPayload of an auto-renewable subscription. An appAccountToken is set by default so
    tests can check the server never keeps it."""
    payload = {
        "transactionId": transaction_id,
        "originalTransactionId": original_transaction_id,
        "webOrderLineItemId": str(int(transaction_id) + 1) if transaction_id.isdigit() else transaction_id + "-w",
        "bundleId": bundle_id,
        "productId": product_id,
        "subscriptionGroupIdentifier": "21000001",
        "purchaseDate": purchase_date,
        "originalPurchaseDate": original_purchase_date if original_purchase_date is not None else purchase_date,
        "expiresDate": expires_date,
        "quantity": 1,
        "type": "Auto-Renewable Subscription",
        "inAppOwnershipType": "PURCHASED",
        "signedDate": signed_date,
        "environment": environment,
        "transactionReason": transaction_reason,
        "storefront": storefront,
        "storefrontId": "143443",
        "price": price,
        "currency": currency,
        "appTransactionId": "704289736240498193",
    }
    if app_account_token is not None:
        payload["appAccountToken"] = app_account_token
    if offer_type is not None:
        payload["offerType"] = offer_type
    if offer_identifier is not None:
        payload["offerIdentifier"] = offer_identifier
    if offer_discount_type is not None:
        payload["offerDiscountType"] = offer_discount_type
    if offer_period is not None:
        payload["offerPeriod"] = offer_period
    if revocation_reason is not None:
        payload["revocationReason"] = revocation_reason
        payload["revocationDate"] = revocation_date if revocation_date is not None else signed_date
    return payload


def renewal_info(*, original_transaction_id: str, product_id: str, signed_date: int, environment: str = "Production",
                 auto_renew_status: int = 1, expiration_intent: Optional[int] = None,
                 is_in_billing_retry_period: Optional[bool] = None, price_increase_status: Optional[int] = None,
                 grace_period_expires_date: Optional[int] = None, renewal_date: Optional[int] = None,
                 renewal_price: int = 4_990, currency: str = "EUR", offer_type: Optional[int] = None,
                 offer_identifier: Optional[str] = None,
                 app_account_token: Optional[str] = "7e3fb20b-4cdb-47cc-936d-99d65f608138") -> dict:
    """JWSRenewalInfoDecodedPayload."""
    payload = {
        "originalTransactionId": original_transaction_id,
        "autoRenewProductId": product_id,
        "productId": product_id,
        "autoRenewStatus": auto_renew_status,
        "signedDate": signed_date,
        "environment": environment,
        "recentSubscriptionStartDate": signed_date,
        "renewalPrice": renewal_price,
        "currency": currency,
    }
    if renewal_date is not None:
        payload["renewalDate"] = renewal_date
    if app_account_token is not None:
        payload["appAccountToken"] = app_account_token
    for key, value in (("expirationIntent", expiration_intent), ("isInBillingRetryPeriod", is_in_billing_retry_period),
                       ("priceIncreaseStatus", price_increase_status),
                       ("gracePeriodExpiresDate", grace_period_expires_date), ("offerType", offer_type),
                       ("offerIdentifier", offer_identifier)):
        if value is not None:
            payload[key] = value
    return payload


def notification(*, notification_type: str, subtype: Optional[str], signed_date: int,
                 environment: str = "Production", bundle_id: str = BUNDLE_ID, app_apple_id: Optional[int] = APP_APPLE_ID,
                 signed_transaction_info: Optional[str] = None, signed_renewal_info: Optional[str] = None,
                 status: Optional[int] = 1, notification_uuid: Optional[str] = None) -> dict:
    """ResponseBodyV2DecodedPayload with `data` (what subscription notifications and TEST carry)."""
    data: dict = {"bundleId": bundle_id, "bundleVersion": "42", "environment": environment}
    if app_apple_id is not None:
        data["appAppleId"] = app_apple_id
    if signed_transaction_info is not None:
        data["signedTransactionInfo"] = signed_transaction_info
    if signed_renewal_info is not None:
        data["signedRenewalInfo"] = signed_renewal_info
    if status is not None:
        data["status"] = status
    payload = {"notificationType": notification_type, "notificationUUID": notification_uuid or str(uuid.uuid4()),
               "data": data, "version": "2.0", "signedDate": signed_date}
    if subtype is not None:
        payload["subtype"] = subtype
    return payload
