"""Starts a real flagserver with the App Store receiver on, as scripts/interop-flagserver starts its servers:
`--port 0` on loopback, its own SQLite file (or the empty PostgreSQL database given) and flags directory in a
temporary directory, a writer token created with `flagserver token create` before the server opens the database,
the URL read from the "listening on" line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Iterable, Optional, Tuple


class FlagServerError(RuntimeError):
    pass


class FlagServer:
    def __init__(self, binary: str, root_pem: str, bundle_id: str, app_apple_id: int,
                 environments: Iterable[str] = ("Production", "Sandbox"), extra: Iterable[str] = (),
                 database: Optional[str] = None):
        """`database`: a PostgreSQL URI of an EMPTY database (the tests count what they stored); None: a new
        SQLite file."""
        self.binary = binary
        self.work = tempfile.mkdtemp(prefix="appstore-peer-")
        self.database = database or os.path.join(self.work, "flags.sqlite")
        self.is_sqlite = not self.database.startswith(("postgres://", "postgresql://"))
        os.mkdir(os.path.join(self.work, "flags"))
        self.log_path = os.path.join(self.work, "flagserver.log")
        self.token = self._create_token()
        self.arguments = [binary, "--port", "0", "--database", self.database,
                          "--flags-dir", os.path.join(self.work, "flags"), "--console-dir", "off",
                          "--log-level", "warning",
                          "--appstore-root-certificate", root_pem, "--appstore-bundle-id", bundle_id,
                          "--appstore-app-apple-id", str(app_apple_id),
                          "--appstore-environments", ",".join(environments), *extra]
        self.process: Optional[subprocess.Popen] = None
        self.url = ""

    def _create_token(self) -> str:
        result = subprocess.run([self.binary, "--database", self.database, "token", "create", "--name",
                                 "appstore-peer", "--role", "writer"], capture_output=True, text=True)
        secrets = [line for line in result.stdout.splitlines() if line.startswith("sfl_")]
        if result.returncode != 0 or not secrets:
            raise FlagServerError(f"token create exited {result.returncode}: {result.stdout}{result.stderr}")
        return secrets[0]

    def start(self, seconds: float = 60) -> "FlagServer":
        log = open(self.log_path, "w")
        self.process = subprocess.Popen(self.arguments, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.time() + seconds
        while time.time() < deadline:
            with open(self.log_path) as f:
                match = re.search(r"^listening on (\S+)", f.read(), re.MULTILINE)
            if match:
                self.url = match.group(1).rstrip("/")
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        message = f"flagserver did not start ({' '.join(self.arguments)}):\n{self.log()}"
        self.stop()
        raise FlagServerError(message)

    def log(self) -> str:
        with open(self.log_path) as f:
            return f.read()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.work, ignore_errors=True)

    def database_bytes(self) -> int:
        """The SQLite file with its WAL: what the store occupies on disk now."""
        if not self.is_sqlite:
            raise FlagServerError("database_bytes reads a SQLite file; this server uses PostgreSQL")
        return sum(os.path.getsize(self.database + suffix) for suffix in ("", "-wal")
                   if os.path.exists(self.database + suffix))


def request(url: str, method: str = "GET", body: Optional[bytes] = None, token: Optional[str] = None,
            timeout: float = 60) -> Tuple[int, bytes]:
    """One HTTP exchange; any status comes back (urllib raises on 4xx/5xx, which a test wants to look at)."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def error_code(body: bytes) -> str:
    """The API's error envelope `{"error": {"code": ...}}` (docs/api.md); the raw body when it is not that."""
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return body[:80].decode(errors="replace")
