#!/usr/bin/env python3
"""Reads and writes through the nginx front for deploy/test-patroni.sh, logging every answer with its time.

  failover-probe.py BASE_URL CA_FILE TOKEN OUT_DIR STOP_FILE [SECONDS]

Two threads, each on one keep-alive HTTPS connection (a new one after any error):
  reader: every 20 ms a document GET, alternately with the token (nginx never caches those: it reaches a
          flagserver node every time) and without (what apps do: nginx's cache, stale when nodes fail);
          OUT_DIR/reads.log lines "TIME KIND STATUS VERSION" (KIND origin|cached, STATUS 0 = no answer).
  writer: sequential PUTs of production's introOfferMessage, a new value each, ~10 per second;
          OUT_DIR/writes.log lines "SENT ANSWERED STATUS VERSION CONTENTHASH CODE" (VERSION and
          CONTENTHASH "-" unless 200; CODE the error code of a refusal or the exception's class).
TIME is Unix time (time.time()), comparable with `date +%s.%N`. Lines are flushed at once. Stops when
STOP_FILE exists or after SECONDS (600)."""
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse

base, ca_file, token, out_dir, stop_path = sys.argv[1:6]
limit = time.monotonic() + (float(sys.argv[6]) if len(sys.argv) > 6 else 600.0)
url = urllib.parse.urlsplit(base)
context = ssl.create_default_context(cafile=ca_file)
DOCUMENT = "/v1/environments/production/document"
FLAG = "/v1/environments/production/flags/introOfferMessage"


def running():
    return not os.path.exists(stop_path) and time.monotonic() < limit


def connect(timeout):
    return http.client.HTTPSConnection(url.hostname, url.port, timeout=timeout, context=context)


def reader():
    connection = None
    count = 0
    with open(os.path.join(out_dir, "reads.log"), "a") as log:
        while running():
            count += 1
            kind = "origin" if count % 2 else "cached"
            headers = {"Authorization": f"Bearer {token}"} if kind == "origin" else {}
            status, version = 0, "-"
            try:
                if connection is None:
                    connection = connect(10)
                connection.request("GET", DOCUMENT, headers=headers)
                response = connection.getresponse()
                body = response.read()
                status = response.status
                if status == 200:
                    version = str(json.loads(body)["version"])
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                connection = None
            log.write(f"{time.time():.3f} {kind} {status} {version}\n")
            log.flush()
            time.sleep(0.02)


def writer():
    connection = None
    count = 0
    with open(os.path.join(out_dir, "writes.log"), "a") as log:
        while running():
            count += 1
            sent = time.time()
            status, version, content_hash, code = 0, "-", "-", "-"
            try:
                if connection is None:
                    connection = connect(40)
                connection.request("PUT", FLAG, body=json.dumps(f"failover probe {os.getpid()} {count}"), headers={
                    "Authorization": f"Bearer {token}", "Content-Type": "application/json",
                    "X-Change-Message": f"failover probe {count}"})
                response = connection.getresponse()
                body = response.read()
                status = response.status
                if status == 200:
                    result = json.loads(body)
                    version, content_hash = str(result["version"]), result["contentHash"]
                else:
                    try:
                        code = json.loads(body)["error"]["code"]
                    except (ValueError, KeyError, TypeError):
                        code = "non-json"
            except (OSError, http.client.HTTPException, ValueError, KeyError) as problem:
                code = type(problem).__name__
                connection = None
            log.write(f"{sent:.3f} {time.time():.3f} {status} {version} {content_hash} {code}\n")
            log.flush()
            time.sleep(0.1 if status == 200 else 0.05)


threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
