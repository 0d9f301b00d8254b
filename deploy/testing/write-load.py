#!/usr/bin/env python3
"""Write load for deploy/test-backup-restore.sh: sequential flag writes to one environment, each with a
new value, logging every ACKNOWLEDGED write ("VERSION CONTENTHASH", flushed at once) to a file.

  write-load.py BASE_URL ENV TOKEN ACK_FILE STOP_FILE [SECONDS]

Stops when STOP_FILE exists or after SECONDS (60). One keep-alive connection; a failed request is
logged to stderr and retried on a new connection (it is then not in ACK_FILE: only what the server
acknowledged counts)."""
import http.client
import json
import os
import sys
import time
import urllib.parse

base, env, token, ack_path, stop_path = sys.argv[1:6]
limit = time.monotonic() + (float(sys.argv[6]) if len(sys.argv) > 6 else 60.0)
url = urllib.parse.urlsplit(base)
connection = None
count = 0
with open(ack_path, "a") as acks:
    while not os.path.exists(stop_path) and time.monotonic() < limit:
        count += 1
        body = json.dumps(f"restore test {env} {count}")
        try:
            if connection is None:
                connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
            connection.request("PUT", f"/v1/environments/{env}/flags/introOfferMessage", body=body, headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json",
                "X-Change-Message": f"write load {count}"})
            response = connection.getresponse()
            answer = response.read()
            if response.status != 200:
                sys.stderr.write(f"write-load: {response.status} {answer[:200]!r}\n")
                time.sleep(0.05)
                continue
            result = json.loads(answer)
            acks.write(f"{result['version']} {result['contentHash']}\n")
            acks.flush()
        except (OSError, http.client.HTTPException, ValueError, KeyError) as problem:
            sys.stderr.write(f"write-load: {problem!r}\n")
            connection = None
            time.sleep(0.05)
