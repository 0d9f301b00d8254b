"""Apple's own app-store-server-library as the independent peer of flagserver's promotional offer signatures.

A real flagserver is started with a throw-away P-256 In-App Purchase key (`--appstore-offer-key`, a PKCS#8 `.p8` as
App Store Connect hands out), a paywallProduct split naming `symi_plus_monthly_499/winback_50` is published with a
writer token, and a reader token (what ships in the app) asks for a signature. The answer must verify, with
`cryptography` and the key's public half, over the very payload Apple's `PromotionalOfferSignatureCreator` builds for
the same product, offer, appAccountToken, nonce and timestamp (captured by wrapping the loaded key's `sign`), and must
not verify over the payload of another offer. A second request gets another nonce; an offer no arm names is refused.
Skipped without FLAGSERVER_BIN (scripts/appstore-peer-test builds and sets it).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request
import uuid

import pytest
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.hashes import SHA256

from appstore_ca import make_chain
from appstore_sign import APP_APPLE_ID, BUNDLE_ID
from flagserver_process import FlagServer, error_code, request

KEY_ID = "2X9R4HXF34"
PRODUCT = "symi_plus_monthly_499"
OFFER = "winback_50"
SPLIT = {"type": "string", "default": "symi_plus_monthly_399",
         "rules": [{"value": f"{PRODUCT}/{OFFER}", "rollout": 50}]}
REPOSITORY = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


class OfferServer:
    """A flagserver with the offer key, the repository's production document, and a reader token beside the writer's."""

    def __init__(self, binary: str, work: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.key_pem = self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption())
        key_path = os.path.join(work, f"SubscriptionKey_{KEY_ID}.p8")
        with open(key_path, "wb") as f:
            f.write(self.key_pem)
        root_pem, _ = make_chain().write_root(work)
        self.server = FlagServer(binary, root_pem, BUNDLE_ID, APP_APPLE_ID,
                                 extra=["--appstore-offer-key", key_path, "--appstore-offer-key-id", KEY_ID])
        shutil.copy(os.path.join(REPOSITORY, "flags", "production.json"), os.path.join(self.server.work, "flags"))
        result = subprocess.run([binary, "--database", self.server.database, "token", "create", "--name", "app",
                                 "--role", "reader"], capture_output=True, text=True)
        secrets = [line for line in result.stdout.splitlines() if line.startswith("sfl_")]
        assert result.returncode == 0 and secrets, f"token create: {result.stdout}{result.stderr}"
        self.reader = secrets[0]
        self.server.start()

    def publish_split(self) -> None:
        """PUT paywallProduct with the writer token, as an operator publishes the experiment."""
        req = urllib.request.Request(f"{self.server.url}/v1/environments/production/flags/paywallProduct",
                                     data=json.dumps(SPLIT).encode(), method="PUT",
                                     headers={"Content-Type": "application/json", "X-Change-Message": "winback experiment",
                                              "Authorization": f"Bearer {self.server.token}"})
        with urllib.request.urlopen(req, timeout=60) as response:
            assert response.status == 200

    def sign(self, body: dict, token: str = ""):
        status, answer = request(f"{self.server.url}/v1/environments/production/offer-signatures", "POST",
                                 json.dumps(body).encode(), token=token or self.reader)
        return status, answer


@pytest.fixture(scope="module")
def offers(tmp_path_factory):
    binary = os.environ.get("FLAGSERVER_BIN")
    if not binary:
        pytest.skip("FLAGSERVER_BIN is not set: the offer signatures need a flagserver binary")
    server = OfferServer(binary, str(tmp_path_factory.mktemp("offers")))
    try:
        server.publish_split()
        yield server
    finally:
        server.server.stop()


def apple_payload(key_pem: bytes, product: str, offer: str, username: str, nonce: str, timestamp: int) -> bytes:
    """The bytes Apple's PromotionalOfferSignatureCreator signs for these inputs: its loaded key's `sign` is wrapped."""
    creator = PromotionalOfferSignatureCreator(key_pem, KEY_ID, BUNDLE_ID)
    loaded = creator._signing_key
    captured = []

    class Capturing:
        def sign(self, data, algorithm):
            captured.append(data)
            return loaded.sign(data, algorithm)

    creator._signing_key = Capturing()
    apple_signature = creator.create_signature(product, offer, username, uuid.UUID(nonce), timestamp)
    assert len(captured) == 1
    # Apple's own signature verifies over what was captured: the capture is the payload.
    loaded.public_key().verify(base64.b64decode(apple_signature), captured[0], ec.ECDSA(SHA256()))
    return captured[0]


def verifies(public_key, signature: bytes, payload: bytes) -> bool:
    try:
        public_key.verify(signature, payload, ec.ECDSA(SHA256()))
        return True
    except InvalidSignature:
        return False


def test_a_signature_verifies_over_apples_payload(offers):
    account = str(uuid.uuid4()).upper()
    before = int(time.time() * 1000)
    status, body = offers.sign({"product": PRODUCT, "offer": OFFER, "appAccountToken": account})
    after = int(time.time() * 1000)
    assert status == 200, body
    answer = json.loads(body)
    assert answer["product"] == PRODUCT and answer["offer"] == OFFER and answer["keyID"] == KEY_ID
    assert answer["appAccountToken"] == account.lower()
    assert answer["nonce"] == str(uuid.UUID(answer["nonce"])), "a lowercase UUID"
    assert isinstance(answer["timestamp"], int) and before - 1000 <= answer["timestamp"] <= after + 1000
    signature = base64.b64decode(answer["signature"], validate=True)
    decode_dss_signature(signature)  # DER ECDSA-Sig-Value, as StoreKit takes it
    payload = apple_payload(offers.key_pem, PRODUCT, OFFER, account, answer["nonce"], answer["timestamp"])
    public_key = offers.key.public_key()
    assert verifies(public_key, signature, payload)
    # The check can fail: another offer's payload, or the payload without the account token.
    assert not verifies(public_key, signature,
                        apple_payload(offers.key_pem, PRODUCT, "winback_40", account, answer["nonce"], answer["timestamp"]))
    assert not verifies(public_key, signature,
                        apple_payload(offers.key_pem, PRODUCT, OFFER, "", answer["nonce"], answer["timestamp"]))


def test_without_an_account_token_the_username_is_empty_and_each_nonce_is_new(offers):
    nonces = set()
    for _ in range(2):
        status, body = offers.sign({"product": PRODUCT, "offer": OFFER})
        assert status == 200, body
        answer = json.loads(body)
        assert "appAccountToken" not in answer
        payload = apple_payload(offers.key_pem, PRODUCT, OFFER, "", answer["nonce"], answer["timestamp"])
        assert verifies(offers.key.public_key(), base64.b64decode(answer["signature"]), payload)
        nonces.add(answer["nonce"])
    assert len(nonces) == 2


def test_an_offer_no_arm_names_is_refused(offers):
    status, body = offers.sign({"product": PRODUCT, "offer": "winback_90"})
    assert status == 404 and error_code(body) == "offer_not_in_experiment", body
    assert json.loads(body)["error"]["arms"] == [f"{PRODUCT}/{OFFER}", "symi_plus_monthly_399"]
    status, body = offers.sign({"product": PRODUCT, "offer": OFFER}, token="sfl_not_a_token")
    assert status == 401, body
