#!/usr/bin/env python3
"""OFREP interop: the real OpenFeature Python SDK with its OFREP provider against a server.

Works against any base URL (ofrep-test-server now, flagserver later). Checks:
  * every flag type through the typed SDK calls, with value, variant, reason and metadata;
  * every error code through the SDK's resolution details (FLAG_NOT_FOUND, TYPE_MISMATCH,
    PARSE_ERROR, TARGETING_KEY_MISSING, INVALID_CONTEXT, GENERAL for 401/403/429);
  * rate limiting (429 + Retry-After, and how the provider pauses afterwards);
  * for every line of an expectations file written by `ofrep-expectations` (FlagKit's own answers),
    the SDK's value, variant and reason of every flag;
  * the bulk endpoint's ETag / If-None-Match / 304 (raw HTTP: the Python provider is server-side
    and never calls it).

Prints `ofrep interop: N passed, M failed` and exits 1 when anything failed (2 on bad usage).
"""

import argparse
import concurrent.futures
import json
import sys
import threading
import time
import urllib.parse

import requests
from openfeature import api
from openfeature.evaluation_context import EvaluationContext
from openfeature.exception import ErrorCode
from openfeature.flag_evaluation import Reason
from openfeature.contrib.provider.ofrep import OFREPProvider


class Tally:
    def __init__(self, verbose_limit=20):
        self.passed = 0
        self.failed = 0
        self.skipped = []
        self.shown = 0
        self.limit = verbose_limit
        self.sections = {}
        self.lock = threading.Lock()

    def check(self, section, ok, message):
        with self.lock:
            return self._check(section, ok, message)

    def _check(self, section, ok, message):
        counts = self.sections.setdefault(section, [0, 0])
        if ok:
            self.passed += 1
            counts[0] += 1
        else:
            self.failed += 1
            counts[1] += 1
            if self.shown < self.limit:
                print(f"FAIL [{section}] {message}", file=sys.stderr)
                self.shown += 1
        return ok


SDK_CALL = {
    "boolean": ("get_boolean_details", False),
    "string": ("get_string_details", "code-default"),
    "integer": ("get_integer_details", -1),
    "number": ("get_float_details", -1.5),
    "json": ("get_object_details", {"code": "default"}),
}


def same_json(a, b, flag_type):
    """Equal as JSON *with* types: True is not 1, an integer flag must give int, a float flag float."""
    if flag_type == "integer" and (not isinstance(a, int) or isinstance(a, bool)):
        return False
    if flag_type == "number" and not isinstance(a, float):
        return False
    return json.dumps(a, sort_keys=True) == json.dumps(
        float(b) if flag_type == "number" else b, sort_keys=True)


def to_context(attributes):
    attributes = dict(attributes)
    key = attributes.pop("targetingKey", None)
    return EvaluationContext(targeting_key=key, attributes=attributes)


def make_client(base_url, domain, headers=None, session=None):
    provider = OFREPProvider(base_url, headers_factory=(lambda: dict(headers)) if headers else None, timeout=10)
    if session is not None:
        provider.session = session
    api.set_provider(provider, domain=domain)
    return api.get_client(domain=domain), provider


def compare_line(client, line, tally, section):
    context = to_context(line["context"])
    for key, expected in sorted(line["flags"].items()):
        method, default = SDK_CALL[expected["type"]]
        details = getattr(client, method)(key, default, context)
        label = f"{key} for {line['context']}"
        if "errorCode" in expected:
            tally.check(section, details.error_code == ErrorCode(expected["errorCode"]) and details.value == default
                        and details.reason == Reason.ERROR,
                        f"{label}: expected {expected['errorCode']}, got {details.error_code} {details.value!r}")
            continue
        ok = (details.error_code is None and same_json(details.value, expected["value"], expected["type"])
              and details.variant == expected["variant"] and details.reason == Reason(expected["reason"]))
        tally.check(section, ok, f"{label}: expected {expected}, got value={details.value!r} variant={details.variant} "
                                 f"reason={details.reason} error={details.error_code} {details.error_message}")


def check_types_and_metadata(client, lines, tally):
    """Every flag type appears and resolves with metadata {environment, version}."""
    seen = set()
    for line in lines[:50]:
        context = to_context(line["context"])
        for key, expected in sorted(line["flags"].items()):
            if "errorCode" in expected:
                continue
            seen.add(expected["type"])
            method, default = SDK_CALL[expected["type"]]
            details = getattr(client, method)(key, default, context)
            metadata = details.flag_metadata or {}
            tally.check("types", isinstance(metadata.get("version"), int) and isinstance(metadata.get("environment"), str),
                        f"{key}: metadata {metadata!r} lacks version/environment")
    for flag_type in SDK_CALL:
        if flag_type in seen:
            tally.check("types", True, "")
        else:
            tally.skipped.append(f"no {flag_type} flag in this document")
    return seen


def check_errors(client, base_url, lines, tally):
    some = next(((k, v) for line in lines for k, v in sorted(line["flags"].items()) if "errorCode" not in v), None)
    if some is None:
        tally.check("errors", False, "expectations contain no flag that evaluates")
        return
    key, expected = some
    context = EvaluationContext(targeting_key="interop-errors", attributes={"locale": "en-US"})

    details = client.get_boolean_details("no-such-flag-anywhere", True, context)
    tally.check("errors", details.error_code == ErrorCode.FLAG_NOT_FOUND and details.value is True,
                f"unknown flag: {details.error_code} {details.value!r}")

    wrong_type = "string" if expected["type"] != "string" else "boolean"
    method, default = SDK_CALL[wrong_type]
    details = getattr(client, method)(key, default, context)
    tally.check("errors", details.error_code == ErrorCode.TYPE_MISMATCH and details.value == default,
                f"{key} asked as {wrong_type}: {details.error_code} {details.value!r}")

    method, default = SDK_CALL[expected["type"]]
    details = getattr(client, method)(key, default, EvaluationContext(targeting_key="x", attributes={"appVersion": 24}))
    tally.check("errors", details.error_code == ErrorCode.INVALID_CONTEXT and details.value == default,
                f"appVersion as a number: {details.error_code} {details.error_message}")

    class CorruptingSession(requests.Session):
        """Sends a truncated JSON body, so the server answers PARSE_ERROR to a real provider."""
        def post(self, url, **kwargs):
            kwargs.pop("json", None)
            kwargs["data"] = b'{"context": {"targetingKey": '
            kwargs["headers"] = {**(kwargs.get("headers") or {}), "Content-Type": "application/json"}
            return super().post(url, **kwargs)

    corrupt, _ = make_client(base_url, "interop-corrupt", session=CorruptingSession())
    details = getattr(corrupt, method)(key, default, context)
    tally.check("errors", details.error_code == ErrorCode.PARSE_ERROR and details.value == default,
                f"truncated body: {details.error_code} {details.error_message}")

    missing = [(line, k) for line in lines for k, v in sorted(line["flags"].items()) if v.get("errorCode") == "TARGETING_KEY_MISSING"]
    if missing:
        line, k = missing[0]
        method_k, default_k = SDK_CALL[line["flags"][k]["type"]]
        details = getattr(client, method_k)(k, default_k, to_context(line["context"]))
        tally.check("errors", details.error_code == ErrorCode.TARGETING_KEY_MISSING and details.value == default_k,
                    f"{k} without targetingKey: {details.error_code} {details.error_message}")
    else:
        tally.skipped.append("TARGETING_KEY_MISSING: no flag in this document needs bucketing")

    # Raw shapes the provider relies on (the SDK hides the status codes).
    url = ofrep_url(base_url, f"evaluate/flags/{key}")
    r = requests.post(url, data=b"{", headers={"Content-Type": "application/json"}, timeout=10)
    body = r.json()
    tally.check("errors", r.status_code == 400 and body.get("errorCode") == "PARSE_ERROR" and body.get("key") == key
                and isinstance(body.get("errorDetails"), str), f"raw PARSE_ERROR: {r.status_code} {body}")
    r = requests.post(ofrep_url(base_url, "evaluate/flags/no-such-flag-anywhere"), json={"context": {"targetingKey": "a"}}, timeout=10)
    tally.check("errors", r.status_code == 404 and r.json().get("errorCode") == "FLAG_NOT_FOUND", f"raw 404: {r.status_code} {r.text}")


def ofrep_url(base_url, rest):
    return urllib.parse.urljoin(base_url.rstrip("/") + "/", "ofrep/v1/" + rest)


def check_bulk(base_url, lines, tally, headers=None):
    for line in lines[:100]:
        r = requests.post(ofrep_url(base_url, "evaluate/flags"), json={"context": line["context"]}, headers=headers, timeout=10)
        etag = r.headers.get("ETag")
        ok = r.status_code == 200 and etag is not None
        if ok:
            got = {item["key"]: item for item in r.json()["flags"]}
            for key, expected in line["flags"].items():
                item = got.get(key, {})
                if "errorCode" in expected:
                    ok = ok and item.get("errorCode") == expected["errorCode"]
                else:
                    ok = ok and same_json(item.get("value"), expected["value"], expected["type"]) \
                        and item.get("variant") == expected["variant"] and item.get("reason") == expected["reason"]
        tally.check("bulk", ok, f"bulk for {line['context']}: {r.status_code} {r.text[:300]}")
        if not ok:
            continue
        again = requests.post(ofrep_url(base_url, "evaluate/flags"), json={"context": line["context"]},
                              headers={**(headers or {}), "If-None-Match": etag}, timeout=10)
        tally.check("bulk", again.status_code == 304 and again.content == b"" and again.headers.get("ETag") == etag,
                    f"If-None-Match: {again.status_code} {again.headers}")


def check_auth_and_rate_limit(limited_url, token, lines, tally):
    """Against a server that requires a reader token and limits each client to a few requests per second."""
    line = lines[-1]
    key, expected = next((k, v) for k, v in sorted(line["flags"].items()) if "errorCode" not in v)
    method, default = SDK_CALL[expected["type"]]
    context = to_context(line["context"])

    anonymous, _ = make_client(limited_url, "interop-anonymous")
    details = getattr(anonymous, method)(key, default, context)
    tally.check("auth", details.error_code == ErrorCode.GENERAL and details.error_message == "unauthorized"
                and details.value == default, f"no token: {details.error_code} {details.error_message}")
    r = requests.post(ofrep_url(limited_url, f"evaluate/flags/{key}"), json={"context": line["context"]}, timeout=10)
    tally.check("auth", r.status_code == 401 and r.headers.get("WWW-Authenticate", "").startswith("Bearer"),
                f"raw no token: {r.status_code} {r.headers}")
    # production exists on the server; the token may read only the default environment ("test").
    forbidden_url = limited_url.rstrip("/") + "/v1/environments/production"
    restricted, _ = make_client(forbidden_url, "interop-restricted", headers={"Authorization": f"Bearer {token}"})
    details = getattr(restricted, method)(key, default, context)
    tally.check("auth", details.error_code == ErrorCode.GENERAL and details.error_message == "forbidden",
                f"token for another environment: {details.error_code} {details.error_message}")

    client, provider = make_client(limited_url, "interop-limited", headers={"Authorization": f"Bearer {token}"})
    started = time.monotonic()
    served = 0
    details = None
    for _ in range(1000):
        details = getattr(client, method)(key, default, context)
        if details.error_code is not None:
            break
        served += 1
    tally.check("rate-limit", details is not None and details.error_code == ErrorCode.GENERAL
                and "Rate limited" in (details.error_message or "") and details.value == default,
                f"after {served} requests: {details.error_code if details else None} {details.error_message if details else ''}")
    paused_until = provider.retry_after
    tally.check("rate-limit", paused_until is not None, "provider did not record Retry-After")
    # The provider now refuses locally until Retry-After has passed (no request reaches the server).
    details = getattr(client, method)(key, default, context)
    tally.check("rate-limit", details.error_code == ErrorCode.GENERAL and "paused" in (details.error_message or ""),
                f"during the pause: {details.error_code} {details.error_message}")
    r = requests.post(ofrep_url(limited_url, f"evaluate/flags/{key}"), json={"context": line["context"]},
                      headers={"Authorization": f"Bearer {token}"}, timeout=10)
    retry_after = r.headers.get("Retry-After", "")
    tally.check("rate-limit", r.status_code == 429 and retry_after.isdigit() and int(retry_after) >= 1,
                f"raw 429: {r.status_code} Retry-After={retry_after!r}")
    wait = max(float(retry_after or 1), 1.0) + 0.2
    time.sleep(wait)
    details = getattr(client, method)(key, default, context)
    tally.check("rate-limit", details.error_code is None and same_json(details.value, expected["value"], expected["type"]),
                f"after waiting {wait:.1f} s: {details.error_code} {details.error_message}")
    print(f"rate limit: {served} requests served before 429 (burst), provider paused until Retry-After "
          f"({time.monotonic() - started:.1f} s in this section)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True, help="OFREP base URL (the provider appends /ofrep/v1/...)")
    parser.add_argument("--expectations", required=True, help="JSON lines from ofrep-expectations")
    parser.add_argument("--limited-url", help="a server requiring --token and rate-limiting (auth and 429 checks)")
    parser.add_argument("--token", help="a reader token valid on --limited-url for its default environment only")
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    with open(args.expectations, encoding="utf-8") as f:
        lines = [json.loads(text) for text in f if text.strip()]
    if not lines:
        print("ofrep interop: expectations file is empty", file=sys.stderr)
        return 2
    tally = Tally()
    started = time.monotonic()

    client, _ = make_client(args.base_url, "interop-main")
    seen = check_types_and_metadata(client, lines, tally)
    check_errors(client, args.base_url, lines, tally)
    check_bulk(args.base_url, lines, tally)
    if args.limited_url and args.token:
        check_auth_and_rate_limit(args.limited_url, args.token, lines, tally)
    else:
        tally.skipped.append("auth and rate limit (no --limited-url/--token)")

    # FlagKit's answers for every context, through the SDK, spread over a few workers (one provider each).
    clients = [make_client(args.base_url, f"interop-worker-{i}")[0] for i in range(args.workers)]
    chunks = [lines[i::args.workers] for i in range(args.workers)]

    def run(index):
        for line in chunks[index]:
            compare_line(clients[index], line, tally, "flagkit")

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
        list(pool.map(run, range(args.workers)))
    installs = sum(1 for line in lines if "targetingKey" in line["context"])
    elapsed = time.monotonic() - started

    for section, (ok, bad) in sorted(tally.sections.items()):
        print(f"  {section}: {ok} passed, {bad} failed")
    for note in tally.skipped:
        print(f"  skipped: {note}")
    print(f"  flag types covered: {', '.join(sorted(seen))}; {installs} install ids and "
          f"{len(lines) - installs} keyless contexts compared with FlagKit; {elapsed:.1f} s")
    print(f"ofrep interop: {tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
