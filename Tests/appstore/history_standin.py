"""A local stand-in for the App Store Server API's Get Notification History, for `flagserver appstore backfill`'s tests.

It follows Apple's documented shapes: `POST /inApps/v1/notifications/history[?paginationToken=...]` with the JSON body
`NotificationHistoryRequest` ({"startDate": ms, "endDate": ms}) and a bearer JWT; the answer `NotificationHistoryResponse`
({"notificationHistory": [{"signedPayload": ..., "sendAttempts": [...]}], "hasMore": bool, "paginationToken": ...}).

Every request's token is checked by PyJWT with the In-App Purchase key's public key, as Apple's side would: alg ES256,
the kid header, aud "appstoreconnect-v1", iss, bid, iat and exp present and exp - iat at most 3600 seconds; anything
else is answered 401 ("Unauthenticated", as Apple does). The signed payloads it serves come from a file (a JSON array of
signedPayload strings); those whose signedDate lies in [startDate, endDate) are served, `--page-size` per page, the
pages chained by opaque tokens. `--fail-page N --fail 429,503` answers the first requests for page N with those
statuses (then the page), to exercise the client's retries. One JSON line per request goes to `--log`.

Prints "listening on http://127.0.0.1:PORT" when ready; runs until killed.
"""

import argparse
import base64
import json
import secrets
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt

PATH = "/inApps/v1/notifications/history"
MAX_LIFETIME = 3600


def signed_date(signed_payload):
    """The payload's signedDate, read without verifying (the stand-in serves; flagserver verifies)."""
    part = signed_payload.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["signedDate"]


class StandIn:
    def __init__(self, args):
        with open(args.payloads) as f:
            self.payloads = json.load(f)
        with open(args.public_key, "rb") as f:
            self.public_key = f.read()
        self.key_id = args.key_id
        self.issuer_id = args.issuer_id
        self.bundle_id = args.bundle_id
        self.page_size = args.page_size
        self.fail_page = args.fail_page
        self.failures = [int(s) for s in args.fail.split(",") if s] if args.fail else []
        self.log_path = args.log
        self.lock = threading.Lock()
        # paginationToken -> (startDate, endDate, offset, page number)
        self.tokens = {}

    def log(self, entry):
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")

    def check_token(self, authorization):
        """The claims of a token Apple's side would accept; raises with the reason otherwise."""
        if not authorization or not authorization.startswith("Bearer "):
            raise ValueError("no bearer token")
        token = authorization[len("Bearer "):]
        header = jwt.get_unverified_header(token)
        if header.get("alg") != "ES256" or header.get("typ") != "JWT" or header.get("kid") != self.key_id:
            raise ValueError(f"header {header}")
        claims = jwt.decode(token, self.public_key, algorithms=["ES256"], audience="appstoreconnect-v1",
                            issuer=self.issuer_id, options={"require": ["iss", "iat", "exp", "aud", "bid"]})
        if claims["bid"] != self.bundle_id:
            raise ValueError(f"bid {claims['bid']!r}")
        lifetime = claims["exp"] - claims["iat"]
        if not 0 < lifetime <= MAX_LIFETIME:
            raise ValueError(f"exp - iat = {lifetime}")
        return header, claims

    def page(self, start, end, offset, number):
        """One page of the span from `offset`, and its next token."""
        chosen = [p for p in self.payloads if start <= signed_date(p) < end]
        items = [{"signedPayload": p, "sendAttempts": [{"attemptDate": signed_date(p) + 1000, "sendAttemptResult": "TIMED_OUT"}]}
                 for p in chosen[offset:offset + self.page_size]]
        answer = {"notificationHistory": items, "hasMore": offset + self.page_size < len(chosen)}
        if answer["hasMore"]:
            # Opaque, with the characters a query must percent-encode.
            token = base64.b64encode(secrets.token_bytes(24)).decode() + "+/="
            with self.lock:
                self.tokens[token] = (start, end, offset + self.page_size, number + 1)
            answer["paginationToken"] = token
        return answer


def handler(standin):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body, entry):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if not isinstance(body, bytes) else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            entry["status"] = status
            standin.log(entry)

        def do_POST(self):
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            query = parse_qs(url.query, keep_blank_values=True)
            entry = {"method": "POST", "path": url.path, "query": query}
            if url.path != PATH:
                return self.answer(404, {"errorCode": 4040000, "errorMessage": "not found"}, entry)
            try:
                header, claims = standin.check_token(self.headers.get("Authorization"))
                entry["jwt"] = {"header": header, "claims": claims}
            except Exception as error:  # PyJWT's errors and ours: each is a refusal.
                entry["jwt_error"] = f"{type(error).__name__}: {error}"
                return self.answer(401, b"Unauthenticated\n", entry)
            try:
                body = json.loads(raw)
                start, end = body["startDate"], body["endDate"]
                if not (isinstance(start, int) and isinstance(end, int) and start < end):
                    raise ValueError("startDate and endDate must be integers, startDate first")
                entry["body"] = body
            except Exception as error:
                entry["body_error"] = str(error)
                return self.answer(400, {"errorCode": 4000000, "errorMessage": str(error)}, entry)
            if self.headers.get("Content-Type") != "application/json":
                return self.answer(400, {"errorCode": 4000000, "errorMessage": "Content-Type"}, entry)
            tokens = query.get("paginationToken")
            if tokens:
                with standin.lock:
                    saved = standin.tokens.get(tokens[0])
                if saved is None or saved[:2] != (start, end):
                    return self.answer(400, {"errorCode": 4000006, "errorMessage": "Invalid pagination token."}, entry)
                offset, number = saved[2], saved[3]
            else:
                offset, number = 0, 1
            entry["page"] = number
            if number == standin.fail_page:
                with standin.lock:
                    failure = standin.failures.pop(0) if standin.failures else None
                if failure is not None:
                    return self.answer(failure, {"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}, entry)
            page = standin.page(start, end, offset, number)
            entry["served"] = len(page["notificationHistory"])
            return self.answer(200, page, entry)

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payloads", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--issuer-id", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--page-size", type=int, default=3)
    parser.add_argument("--fail-page", type=int, default=0)
    parser.add_argument("--fail", default="")
    parser.add_argument("--log", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    # A parent that blocks SIGTERM in the spawning thread passes the mask on; the stand-in must stop when told.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(StandIn(args)))
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
