#!/usr/bin/env python3
"""Webhook interop: a receiver written with Python's standard library only (http.server, hmac) against the
real flagserver, verifying signatures exactly as docs/api.md tells receivers to.

Registers two webhooks through the API with an admin token: one whose receiver answers 204, one whose
receiver answers 500 to the first attempt. A writer flips a flag; both receivers must get a
`version.published` delivery whose `Symi-Webhook-Signature` verifies with `hmac.compare_digest` over
`t + "." + raw body` with the webhook's secret and a `t` within five minutes; the second must get the same
event again (same `Symi-Webhook-Id`, attempt 2) and the delivery log must show both attempts. A tampered
body and a wrong secret must not verify.

Prints `webhook interop: N passed, M failed` and exits 1 when anything failed.
"""

import argparse
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from tally import Tally


def verify(secret: bytes, header: str, body: bytes, tolerance=300) -> bool:
    """docs/api.md's recipe, verbatim."""
    parts = dict(p.split("=", 1) for p in header.split(","))
    t, sig = parts["t"], parts["v1"]
    expected = hmac.new(secret, t.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, sig) and abs(time.time() - int(t)) <= tolerance


def receiver(statuses):
    """A loopback HTTP server answering the n-th POST with statuses[n] (the last one from then on)."""
    received = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.append((dict(self.headers), body))
            status = statuses[min(len(received), len(statuses)) - 1]
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, received


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--writer-token", required=True)
    args = parser.parse_args()
    base = args.base_url.rstrip("/")
    admin = {"Authorization": f"Bearer {args.admin_token}"}
    tally = Tally("webhook interop")
    check = tally.check

    def wait(condition, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if condition():
                return True
            time.sleep(0.05)
        return False

    hooks = {}
    for name, statuses in (("ok", [204]), ("flaky", [500, 200])):
        server, received = receiver(statuses)
        url = f"http://127.0.0.1:{server.server_address[1]}/symi"
        created = requests.post(f"{base}/v1/webhooks", headers=admin, timeout=5,
                                json={"url": url, "events": ["version.published"], "environments": ["production"]})
        check(created.status_code == 201, f"{name}: register: {created.status_code} {created.text}")
        secret = created.json().get("secret", "")
        check(secret.startswith("whsec_"), f"{name}: a generated secret: {secret!r}")
        hooks[name] = (created.json().get("id"), secret.encode(), received)

    flip = requests.put(f"{base}/v1/environments/production/flags/monetizationEnabled", data="false", timeout=5,
                        headers={"Authorization": f"Bearer {args.writer_token}", "Content-Type": "application/json",
                                 "X-Change-Message": "webhook interop"})
    check(flip.status_code == 200, f"flip: {flip.status_code} {flip.text}")
    etag = flip.headers.get("ETag")

    for name, (hook_id, secret, received) in hooks.items():
        expected = 1 if name == "ok" else 2
        if not check(wait(lambda: len(received) >= expected), f"{name}: {expected} deliveries, got {len(received)}"):
            continue
        for attempt, (headers, body) in enumerate(received[:expected], start=1):
            signature = headers.get("Symi-Webhook-Signature", "")
            check(verify(secret, signature, body), f"{name} attempt {attempt}: the signature verifies: {signature}")
            check(headers.get("Symi-Webhook-Attempt") == str(attempt), f"{name}: attempt header {headers.get('Symi-Webhook-Attempt')}")
            check(headers.get("Symi-Webhook-Event") == "version.published", f"{name}: event header")
            event = json.loads(body)
            check(headers.get("Symi-Webhook-Id") == event.get("id"), f"{name}: the id header is the body's id")
            check(event.get("type") == "version.published" and event.get("environment") == "production", f"{name}: {event}")
            check(event.get("data", {}).get("etag") == etag and event["data"].get("message") == "webhook interop", f"{name}: data {event.get('data')}")
        headers, body = received[0]
        check(not verify(secret, headers["Symi-Webhook-Signature"], body + b" "), f"{name}: a changed body does not verify")
        check(not verify(b"whsec_wrong", headers["Symi-Webhook-Signature"], body), f"{name}: another secret does not verify")
        if name == "flaky":
            check(received[0][0].get("Symi-Webhook-Id") == received[1][0].get("Symi-Webhook-Id"), "flaky: the retry has the same id")
            log = {}

            def delivered():
                nonlocal log
                log = requests.get(f"{base}/v1/webhooks/{hook_id}/deliveries", headers=admin, timeout=5).json()
                return log["deliveries"] and log["deliveries"][0]["status"] == "delivered"

            check(wait(delivered), f"flaky: the log says delivered: {log}")
            attempts = log["deliveries"][0]["attempts"] if log.get("deliveries") else []
            check([a["responseStatus"] for a in attempts] == [500, 200], f"flaky: both attempts logged: {attempts}")

    sys.exit(tally.finish())


if __name__ == "__main__":
    main()
