#!/usr/bin/env python3
"""A throw-away certificate chain shaped like Apple's App Store signing chain (root -> intermediate -> leaf, P-256),
for signing test notifications that Apple's own app-store-server-library and flagserver must both verify.

Apple marks its chain with two extensions that verifiers look for (the library's `_ChainVerifier.check_oid`):
the leaf carries OID 1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1, each non-critical
with a DER NULL value (05 00). The knobs below leave a marker out, move a validity window, or issue the intermediate
under an existing root, so each defect can be tested alone against a chain that is otherwise good.

The library verifies with OpenSSL's X509_STRICT flag, so the certificates carry what strict mode demands: a critical
basicConstraints, keyUsage, subject and authority key identifiers.

Command line: `appstore_ca.py --out DIR` writes root.pem and root.der (the root a server is configured with) and
chain.pem (the three certificates with their keys, for `replay.py --chain DIR` to sign with).
"""

from __future__ import annotations

import argparse
import base64
import datetime
import os
from dataclasses import dataclass
from typing import Optional, Tuple

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

LEAF_MARKER_OID = "1.2.840.113635.100.6.11.1"
INTERMEDIATE_MARKER_OID = "1.2.840.113635.100.6.2.1"
DER_NULL = b"\x05\x00"

Window = Tuple[datetime.datetime, datetime.datetime]


def utc(year: int, month: int = 1, day: int = 1) -> datetime.datetime:
    return datetime.datetime(year, month, day, tzinfo=datetime.timezone.utc)


def default_window() -> Window:
    """Ten years either side of now: covers any signedDate a test or replay uses unless a knob narrows it."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now - datetime.timedelta(days=3650), now + datetime.timedelta(days=3650)


def marker(oid: str) -> x509.UnrecognizedExtension:
    return x509.UnrecognizedExtension(x509.ObjectIdentifier(oid), DER_NULL)


@dataclass(frozen=True)
class Authority:
    """A certificate with its private key (a root or an intermediate that issues the next one)."""
    key: ec.EllipticCurvePrivateKey
    certificate: x509.Certificate


def _issue(subject_name: str, key: ec.EllipticCurvePrivateKey, issuer: Optional[Authority], window: Window,
           is_ca: bool, extra: Optional[x509.ExtensionType] = None) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject_name),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Symi Test Authority"),
                         x509.NameAttribute(NameOID.COUNTRY_NAME, "DE")])
    issuer_name = issuer.certificate.subject if issuer else subject
    signing_key = issuer.key if issuer else key
    issuer_public = signing_key.public_key()
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer_name)
               .public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(window[0])
               .not_valid_after(window[1])
               .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not is_ca, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=is_ca, crl_sign=is_ca, encipher_only=False,
                                            decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public), critical=False))
    if extra is not None:
        builder = builder.add_extension(extra, critical=False)
    return builder.sign(signing_key, hashes.SHA256())


def make_root(name: str = "Symi Test Root CA", window: Optional[Window] = None) -> Authority:
    key = ec.generate_private_key(ec.SECP256R1())
    return Authority(key, _issue(name, key, None, window or default_window(), is_ca=True))


@dataclass(frozen=True)
class Chain:
    """root -> intermediate -> leaf; the leaf's key signs JWS, `x5c()` is the header's chain, leaf first."""
    root: Authority
    intermediate: Authority
    leaf: Authority

    def x5c(self) -> list:
        """Standard base64 (not base64url) of each certificate's DER, leaf first (RFC 7515 §4.1.6)."""
        return [base64.b64encode(c.certificate.public_bytes(serialization.Encoding.DER)).decode()
                for c in (self.leaf, self.intermediate, self.root)]

    @property
    def root_der(self) -> bytes:
        return self.root.certificate.public_bytes(serialization.Encoding.DER)

    @property
    def root_pem(self) -> bytes:
        return self.root.certificate.public_bytes(serialization.Encoding.PEM)

    def write_root(self, directory: str, stem: str = "root") -> Tuple[str, str]:
        """Writes STEM.pem and STEM.der into directory; returns both paths."""
        pem_path = os.path.join(directory, stem + ".pem")
        der_path = os.path.join(directory, stem + ".der")
        with open(pem_path, "wb") as f:
            f.write(self.root_pem)
        with open(der_path, "wb") as f:
            f.write(self.root_der)
        return pem_path, der_path


def save_chain(chain: Chain, directory: str) -> None:
    """root.pem, root.der and chain.pem (leaf, intermediate, root: each key then its certificate)."""
    chain.write_root(directory)
    with open(os.path.join(directory, "chain.pem"), "wb") as f:
        for authority in (chain.leaf, chain.intermediate, chain.root):
            f.write(authority.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))
            f.write(authority.certificate.public_bytes(serialization.Encoding.PEM))


def load_chain(directory: str) -> Chain:
    """The chain `save_chain` wrote."""
    with open(os.path.join(directory, "chain.pem"), "rb") as f:
        text = f.read()
    blocks = [b"-----BEGIN" + part for part in text.split(b"-----BEGIN")[1:]]
    keys = [serialization.load_pem_private_key(b, None) for b in blocks if b"PRIVATE KEY" in b.split(b"\n")[0]]
    certificates = [x509.load_pem_x509_certificate(b) for b in blocks if b"CERTIFICATE" in b.split(b"\n")[0]]
    if len(keys) != 3 or len(certificates) != 3:
        raise ValueError(f"{directory}/chain.pem: want 3 keys and 3 certificates, found {len(keys)} and {len(certificates)}")
    leaf, intermediate, root = (Authority(k, c) for k, c in zip(keys, certificates))
    return Chain(root, intermediate, leaf)


def make_chain(root: Optional[Authority] = None, *, leaf_marker: bool = True, intermediate_marker: bool = True,
               leaf_window: Optional[Window] = None, intermediate_window: Optional[Window] = None,
               root_name: str = "Symi Test Root CA") -> Chain:
    """A chain under `root` (a new root when None: "another root"). The markers and windows are the knobs; the
    defaults give a chain Apple's library accepts for any signedDate within ten years of now."""
    root = root or make_root(root_name)
    intermediate_key = ec.generate_private_key(ec.SECP256R1())
    intermediate = Authority(intermediate_key, _issue(
        "Symi Test Worldwide Developer Relations CA", intermediate_key, root,
        intermediate_window or default_window(), is_ca=True,
        extra=marker(INTERMEDIATE_MARKER_OID) if intermediate_marker else None))
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = Authority(leaf_key, _issue(
        "Symi Test Prod ECC App Store Receipt Signing", leaf_key, intermediate,
        leaf_window or default_window(), is_ca=False,
        extra=marker(LEAF_MARKER_OID) if leaf_marker else None))
    return Chain(root, intermediate, leaf)


def main() -> None:
    parser = argparse.ArgumentParser(description="Write a throw-away App Store-shaped chain and its root (PEM and DER).")
    parser.add_argument("--out", required=True, help="directory for root.pem, root.der and chain.pem")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    save_chain(make_chain(), args.out)
    print(os.path.join(args.out, "root.pem"))


if __name__ == "__main__":
    main()
