#!/usr/bin/env python3
"""A stand-in for `flagserver`, for the deploy tests until the real binary is on this branch.

It speaks the part of flagserver's command line and HTTP API that deploy/test-tls-front.sh uses,
the way flagserver's spec describes it (so the test runs unchanged with FLAGSERVER=path/to/flagserver):

  standin-flagserver.py [--host H] [--port N] [--database FILE] [--flags-dir DIR]
      prints "listening on http://H:PORT" when ready, stops gracefully on SIGTERM/SIGINT.
  standin-flagserver.py [--database FILE] token create --name N --role writer|reader|admin
  (each option also from FLAGSERVER_HOST, FLAGSERVER_PORT, FLAGSERVER_DATABASE, FLAGSERVER_FLAGS_DIR)
      prints the secret (sfl_...) once.

HTTP: GET /v1/environments/{env}/document (envelope with version + document, strong ETag,
flagserver's Cache-Control, the gzip variant with its own tag for Accept-Encoding: gzip, 304 on If-None-Match),
PUT /v1/environments/{env}/flags/{key}
(Bearer writer token, application/json, X-Change-Message, optional If-Match -> 412),
PUT /v1/environments/{env}/document (If-Match required -> 428), /healthz, /readyz, /metrics.

NOT flagserver: the "database" is a JSON file, nothing is validated beyond JSON syntax.
"""
import gzip
import hashlib
import http.server
import json
import os
import secrets
import signal
import sys
import threading
from email.utils import formatdate

CACHE_CONTROL = "public, max-age=5, stale-while-revalidate=30, stale-if-error=86400"


def parse_args(argv):
    # Like flagserver: each option falls back to an environment variable, options win.
    options = {"--host": os.environ.get("FLAGSERVER_HOST", "127.0.0.1"),
               "--port": os.environ.get("FLAGSERVER_PORT", "8080"),
               "--database": os.environ.get("FLAGSERVER_DATABASE", "./data/flags.sqlite"),
               "--flags-dir": os.environ.get("FLAGSERVER_FLAGS_DIR", "./flags")}
    rest = []
    words = list(argv)
    while words:
        word = words.pop(0)
        if word in options:
            if not words:
                sys.exit(f"standin-flagserver: {word} needs a value")
            options[word] = words.pop(0)
        else:
            rest.append(word)
    return options, rest


class State:
    """The JSON 'database': environments with version and document, and writer token hashes."""

    def __init__(self, path, flags_dir):
        self.path = path
        self.lock = threading.Lock()
        self.data = {"environments": {}, "tokens": {}}
        if os.path.exists(path):
            with open(path, "rb") as f:
                self.data = json.load(f)
        if flags_dir and os.path.isdir(flags_dir):
            for name in sorted(os.listdir(flags_dir)):
                env = name[:-5]
                if name.endswith(".json") and env not in self.data["environments"]:
                    with open(os.path.join(flags_dir, name), "rb") as f:
                        self.data["environments"][env] = {"version": 1, "document": json.load(f)}
        self.save()

    def save(self):
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        temporary = self.path + ".tmp"
        with open(temporary, "w") as f:
            json.dump(self.data, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)

    @staticmethod
    def body_and_etag(env, entry):
        body = json.dumps({"environment": env, "version": entry["version"], "document": entry["document"]},
                          sort_keys=True, separators=(",", ":")).encode() + b"\n"
        digest = hashlib.sha256(json.dumps(entry["document"], sort_keys=True).encode()).hexdigest()
        return body, f'"{entry["version"]}-{digest[:16]}"'


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as nginx's upstream keepalive expects
    state: State = None  # set in main

    def log_message(self, fmt, *args):
        sys.stderr.write("standin: %s\n" % (fmt % args))

    def send(self, status, body=b"", headers=None, content_type="application/json"):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body or status != 304:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)) if status != 304 else "0")
        self.end_headers()
        if status != 304 and self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        self.send(status, json.dumps({"error": {"code": code, "message": message}}).encode() + b"\n")

    def route(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) >= 4 and parts[0] == "v1" and parts[1] == "environments":
            return parts[2], parts[3:]
        return None, parts

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        env, rest = self.route()
        if self.path in ("/healthz", "/readyz"):
            return self.send(200, b'{"status":"ok"}\n')
        if self.path == "/metrics":
            return self.send(200, b"standin_up 1\n", content_type="text/plain; version=0.0.4")
        if env is None or rest != ["document"]:
            return self.error(404, "not_found", "no such route")
        with self.state.lock:
            entry = self.state.data["environments"].get(env)
            if entry is None:
                return self.error(404, "no_version", f"{env} has no published version yet")
            body, etag = State.body_and_etag(env, entry)
        # As flagserver: a gzip representation with its own strong tag ("...-gzip") for clients that accept gzip
        # (the nginx front sends exactly "gzip" or nothing), and either tag of the version gives a 304.
        gzip_etag = etag[:-1] + '-gzip"'
        accepts_gzip = "gzip" in [c.split(";")[0].strip().lower() for c in self.headers.get("Accept-Encoding", "").split(",")]
        headers = {"ETag": gzip_etag if accepts_gzip else etag, "Cache-Control": CACHE_CONTROL,
                   "Vary": "Authorization, Accept-Encoding", "Last-Modified": formatdate(usegmt=True)}
        none_match = [t.strip() for t in self.headers.get("If-None-Match", "").split(",") if t.strip()]
        if etag in none_match or gzip_etag in none_match or "*" in none_match:
            return self.send(304, headers=headers)
        if accepts_gzip:
            body = gzip.compress(body, mtime=0)
            headers["Content-Encoding"] = "gzip"
        self.send(200, body, headers)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        env, rest = self.route()
        if env is None or not (rest == ["document"] or (len(rest) == 2 and rest[0] == "flags")):
            return self.error(404, "not_found", "no such route")
        secret = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not secret:
            return self.error(401, "unauthorized", "send Authorization: Bearer TOKEN")
        role = self.state.data["tokens"].get(hashlib.sha256(secret.encode()).hexdigest())
        if role is None:
            return self.error(401, "unauthorized", "unknown token")
        if role not in ("writer", "admin"):
            return self.error(403, "forbidden", "needs a writer token")
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            return self.error(415, "unsupported_media_type", "send Content-Type: application/json")
        if not self.headers.get("X-Change-Message", "").strip():
            return self.error(400, "message_required", "send the X-Change-Message header")
        try:
            value = json.loads(raw)
        except ValueError as problem:
            return self.error(400, "invalid_json", str(problem))
        if_match = [t.strip() for t in self.headers.get("If-Match", "").split(",") if t.strip()]
        if rest == ["document"] and not if_match:
            return self.error(428, "precondition_required", "send If-Match with the current ETag")
        with self.state.lock:
            entry = self.state.data["environments"].get(env)
            if entry is None:
                return self.error(404, "not_found", f"no environment {env}")
            _, etag = State.body_and_etag(env, entry)
            if if_match and etag not in if_match and "*" not in if_match:
                return self.error(412, "precondition_failed", f"the current ETag is {etag}")
            document = json.loads(json.dumps(entry["document"]))
            if rest == ["document"]:
                document = value
            else:
                key = rest[1]
                flag = document["flags"].get(key)
                if flag is None:
                    return self.error(404, "unknown_flag", f"no flag {key}")
                if isinstance(value, dict):
                    document["flags"][key] = value
                else:
                    document["flags"][key] = {k: v for k, v in flag.items() if k not in ("rules", "default")}
                    document["flags"][key]["default"] = value
            entry = {"version": entry["version"] + 1, "document": document}
            self.state.data["environments"][env] = entry
            self.state.save()
            _, etag = State.body_and_etag(env, entry)
        self.send(200, json.dumps({"environment": env, "version": entry["version"], "etag": etag}).encode() + b"\n",
                  {"ETag": etag})


def main():
    options, rest = parse_args(sys.argv[1:])
    if rest[:2] == ["token", "create"]:
        name, role = None, None
        for i, word in enumerate(rest):
            if word == "--name" and i + 1 < len(rest):
                name = rest[i + 1]
            if word == "--role" and i + 1 < len(rest):
                role = rest[i + 1]
        if not name or role not in ("reader", "writer", "admin"):
            sys.exit("usage: token create --name NAME --role reader|writer|admin")
        state = State(options["--database"], None)
        secret = "sfl_" + secrets.token_urlsafe(32)
        state.data["tokens"][hashlib.sha256(secret.encode()).hexdigest()] = role
        state.save()
        print(f"created token '{name}' (role {role}). Its secret, shown only now:\n{secret}\n")
        return
    if rest:
        sys.exit(f"standin-flagserver: unknown arguments {rest}")
    Handler.state = State(options["--database"], options["--flags-dir"])
    server = http.server.ThreadingHTTPServer((options["--host"], int(options["--port"])), Handler)
    server.daemon_threads = True
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(f"listening on http://{options['--host']}:{server.server_address[1]}", flush=True)
    stop.wait()
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
