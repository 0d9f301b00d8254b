#!/usr/bin/env python3
"""Writes docs/bucketing-vectors.json: our published bucketing vectors for other platforms.

An independent Python implementation of the contract (murmur3_x86_32, seed 0, over the UTF-8 bytes
of salt + "/" + unit; bucket = (hash * 100000) >> 32); the Swift tests check FlagKit against it.
"""
import json, os, struct

def murmur3_x86_32(data: bytes, seed: int = 0) -> int:
    c1, c2, h = 0xCC9E2D51, 0x1B873593, seed & 0xFFFFFFFF
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF
    n = len(data) // 4
    for (k,) in struct.iter_unpack("<I", data[: n * 4]):
        k = rotl((k * c1) & 0xFFFFFFFF, 15) * c2 & 0xFFFFFFFF
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF
    tail = data[n * 4:]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= rotl((k * c1) & 0xFFFFFFFF, 15) * c2 & 0xFFFFFFFF
    h ^= len(data)
    h ^= h >> 16; h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13; h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)

salts = ["premiumFeaturesLocked", "showIntroFreeSubscriptionBanner", "subscriptionPriceIncreaseMessagingEnabled", "checkout-v2"]
units = ["9F1C2D7E-0000-4000-8000-000000000001", "a", "ab", "abc", "abcd", "abcde", "", "Zoë", "日本語", "🦊🦊", "install/with/slashes", "x" * 100]
vectors = []
for salt in salts:
    for unit in units:
        h = murmur3_x86_32((salt + "/" + unit).encode("utf-8"))
        vectors.append({"salt": salt, "unit": unit, "hash": h, "bucket": (h * 100000) >> 32})
doc = {
    "algorithm": "murmur3_x86_32, seed 0, over the UTF-8 bytes of salt + \"/\" + unit; bucket = (hash * 100000) >> 32, in [0, 100000); inside a rollout of p percent when bucket < p * 1000",
    "emptyUnit": "an empty installId is no installId: a rollout never includes it, on every platform (the vectors with an empty unit check murmur3's tail handling only)",
    "vectors": vectors,
}
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(root, "docs", "bucketing-vectors.json"), "w", encoding="utf-8") as f:
    json.dump(doc, f, ensure_ascii=False, indent=1)
    f.write("\n")
# Self-check against the shared reference vectors where present.
ref = os.path.join(root, "Tests", "FlagKitTests", "Fixtures", "bucketing-reference.json")
for v in json.load(open(ref, encoding="utf-8"))["vectors"]:
    h = murmur3_x86_32((v["salt"] + "/" + v["unit"]).encode("utf-8"))
    assert h == v["hash"] and (h * 100000) >> 32 == v["bucket"], v
print(f"wrote {len(vectors)} vectors; reference vectors reproduced")
