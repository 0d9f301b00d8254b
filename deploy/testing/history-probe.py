#!/usr/bin/env python3
"""Reads and writes on every flagserver node directly and through the front, recording every request's start, end and
answer for deploy/testing/history-check.py (deploy/test-partitions.sh runs it from start to end).

  history-probe.py EVENTS_FILE STOP_FILE TOKEN CA_FILE NAME=BASE_URL ...

Per target NAME (a node, or "front" for nginx) two threads, each on its own keep-alive connection (a new one after any
error): a reader, a document GET of production every 50 ms (with the token, so that nginx never answers from its
cache), and a writer, sequential PUTs of production's introOfferMessage with a value no other write uses, one about
every 200 ms. EVENTS_FILE gets one JSON object a line, flushed at once:
  {"op": "read"|"write", "target": NAME, "start": T, "end": T, "status": S, "version": V, "hash": H,
   "code": C, "unreachable": U}
T are Unix times (time.time(), comparable with `date +%s.%N`); S 0 = no answer (C then names the exception); V and H
the version and content hash of a 200 (null otherwise); C the error code of a refusal; U the value of the read's
Flagserver-Database-Unreachable-Seconds (null when absent). Reads time out after 5 s, writes after 60 s (a write
that takes longer is a hung request: the checker reports the longest). Stops when STOP_FILE exists."""
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse

events_path, stop_path, token, ca_file = sys.argv[1:5]
targets = [argument.split("=", 1) for argument in sys.argv[5:]]
context = ssl.create_default_context(cafile=ca_file)
DOCUMENT = "/v1/environments/production/document"
FLAG = "/v1/environments/production/flags/introOfferMessage"
UNREACHABLE = "Flagserver-Database-Unreachable-Seconds"
lock = threading.Lock()
events = open(events_path, "a")


def record(event):
    line = json.dumps(event, separators=(",", ":")) + "\n"
    with lock:
        events.write(line)
        events.flush()


def connect(url, timeout):
    if url.scheme == "https":
        return http.client.HTTPSConnection(url.hostname, url.port, timeout=timeout, context=context)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)


def run(name, base, op):
    url = urllib.parse.urlsplit(base)
    connection = None
    count = 0
    timeout = 5 if op == "read" else 60
    while not os.path.exists(stop_path):
        count += 1
        event = {"op": op, "target": name, "start": time.time(), "status": 0, "version": None, "hash": None,
                 "code": None, "unreachable": None}
        try:
            if connection is None:
                connection = connect(url, timeout)
            headers = {"Authorization": f"Bearer {token}"}
            if op == "read":
                connection.request("GET", DOCUMENT, headers=headers)
            else:
                headers.update({"Content-Type": "application/json", "X-Change-Message": f"history probe {name} {count}"})
                connection.request("PUT", FLAG, body=json.dumps(f"{name} {os.getpid()} {count}"), headers=headers)
            response = connection.getresponse()
            body = response.read()
            event["status"] = response.status
            event["unreachable"] = response.getheader(UNREACHABLE)
            answer = json.loads(body) if body else {}
            if response.status == 200:
                event["version"], event["hash"] = answer["version"], answer["contentHash"]
            else:
                event["code"] = (answer.get("error") or {}).get("code", "non-json")
        except (OSError, http.client.HTTPException, ValueError, KeyError, AttributeError) as problem:
            event["code"] = type(problem).__name__
            if connection is not None:
                connection.close()
            connection = None
        event["end"] = time.time()
        record(event)
        time.sleep(0.05 if op == "read" else (0.2 if event["status"] == 200 else 0.1))


threads = [threading.Thread(target=run, args=(name, base, op), daemon=True) for name, base in targets for op in ("read", "write")]
for thread in threads:
    thread.start()
print("probing", flush=True)
for thread in threads:
    thread.join()
