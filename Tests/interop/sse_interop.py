#!/usr/bin/env python3
"""Event-stream interop: a real SSE client (sseclient-py on requests) against the real flagserver.

Follows OFREP the way a provider with real-time support would: the bulk evaluation names the stream in
`eventStreams`; the client subscribes to that URL, a writer flips a flag, the `refetchEvaluation` event
arrives with the new ETag; the re-fetch with `flagConfigEtag`/`flagConfigLastModified` sees the new value;
reconnecting with `Last-Event-ID` of the old version gets the current version's event at once.

Prints `sse interop: N passed, M failed` and exits 1 when anything failed.
"""

import argparse
import json
import queue
import sys
import threading
import time

import requests
import sseclient

from tally import Tally

FLAG = "showIntroFreeSubscriptionBanner"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--writer-token", required=True)
    parser.add_argument("--environment", default="production")
    args = parser.parse_args()
    base, env = args.base_url.rstrip("/"), args.environment
    tally = Tally("sse interop")
    check = tally.check

    ofrep = f"{base}/v1/environments/{env}/ofrep/v1/evaluate/flags"
    body = {"context": {"targetingKey": "A1B2C3D4-0000-4000-8000-000000000042"}}
    bulk = requests.post(ofrep, json=body, timeout=5).json()
    streams = [s for s in bulk.get("eventStreams", []) if s.get("type") == "sse"]
    check(len(streams) == 1, f"one sse entry in eventStreams: {bulk.get('eventStreams')}")
    check(bulk.get("refreshConnections") == bulk.get("eventStreams"), "refreshConnections is the same array")
    url = streams[0]["url"] if streams else f"{base}/v1/environments/{env}/events"
    check(url == f"{base}/v1/environments/{env}/events", f"the stream URL is the environment's events endpoint: {url}")
    check(streams and streams[0].get("inactivityDelaySec") == 120, "inactivityDelaySec 120")
    before = {f["key"]: f.get("value") for f in bulk["flags"]}[FLAG]

    events = queue.Queue()

    def listen(headers):
        response = requests.get(url, stream=True, timeout=(5, 30), headers={"Accept": "text/event-stream", **headers})
        events.put(("head", response))
        for event in sseclient.SSEClient(response).events():
            events.put(("event", event))

    threading.Thread(target=listen, args=({},), daemon=True).start()
    kind, head = events.get(timeout=10)
    check(head.status_code == 200 and head.headers.get("Content-Type") == "text/event-stream",
          f"200 text/event-stream: {head.status_code} {head.headers.get('Content-Type')}")
    time.sleep(0.2)  # the subscription is registered once the head is sent; a margin for the reader thread

    document = requests.get(f"{base}/v1/environments/{env}/document", timeout=5)
    old_version = document.json()["version"]
    flipped = requests.put(f"{base}/v1/environments/{env}/flags/{FLAG}", data=json.dumps(not before), timeout=10,
                           headers={"Authorization": f"Bearer {args.writer_token}", "Content-Type": "application/json",
                                    "X-Change-Message": "sse interop"})
    acknowledged = time.monotonic()
    check(flipped.status_code == 200, f"the flip was accepted: {flipped.status_code} {flipped.text[:200]}")
    try:
        kind, event = events.get(timeout=5)
        latency = time.monotonic() - acknowledged
    except queue.Empty:
        kind, event, latency = None, None, None
    if check(kind == "event", "an event arrived within 5 s of the flip"):
        data = json.loads(event.data)
        # The event names the identity representation's tag; a client that took the gzip variant (whose tag is the
        # same with "-gzip") sends either back, and both match the version (docs/api.md, compressed documents).
        etag = requests.get(f"{base}/v1/environments/{env}/document", timeout=5,
                            headers={"Accept-Encoding": "identity"}).headers.get("ETag")
        check(data.get("type") == "refetchEvaluation", f"type refetchEvaluation: {data}")
        check(data.get("etag") == etag, f"the event's etag is the document's ETag: {data.get('etag')} {etag}")
        gzipped = requests.get(f"{base}/v1/environments/{env}/document", timeout=5, headers={"Accept-Encoding": "gzip"})
        check(gzipped.headers.get("ETag") == (etag or "")[:-1] + '-gzip"',
              f"the gzip variant's tag is the identity tag with -gzip: {gzipped.headers.get('ETag')} {etag}")
        revalidated = requests.get(f"{base}/v1/environments/{env}/document", timeout=5,
                                   headers={"Accept-Encoding": "gzip", "If-None-Match": data.get("etag") or ""})
        check(revalidated.status_code == 304, f"the event's etag revalidates a gzip client: {revalidated.status_code}")
        check(event.id == str(old_version + 1), f"id is the new version: {event.id}")
        check(isinstance(data.get("lastModified"), int), "lastModified is Unix seconds")
        print(f"sse interop: event {latency * 1000:.1f} ms after the PUT's answer")
        refetch = requests.post(ofrep, json=body, timeout=5, params={
            "flagConfigEtag": data.get("etag"), "flagConfigLastModified": data.get("lastModified")})
        after = {f["key"]: f.get("value") for f in refetch.json().get("flags", [])}.get(FLAG)
        check(refetch.status_code == 200 and after == (not before), f"the re-fetch sees the flip: {refetch.status_code} {after}")

    resumed = queue.Queue()

    def resume():
        response = requests.get(url, stream=True, timeout=(5, 30), headers={"Last-Event-ID": str(old_version)})
        for event in sseclient.SSEClient(response).events():
            resumed.put(event)

    threading.Thread(target=resume, daemon=True).start()
    try:
        event = resumed.get(timeout=5)
        check(event.id == str(old_version + 1), f"Last-Event-ID {old_version} gets version {old_version + 1} at once: {event.id}")
    except queue.Empty:
        check(False, "Last-Event-ID of an older version gets an event at once")

    # Put the flag back, so a rerun sees the same start.
    requests.put(f"{base}/v1/environments/{env}/flags/{FLAG}", data=json.dumps(before), timeout=10,
                 headers={"Authorization": f"Bearer {args.writer_token}", "Content-Type": "application/json",
                          "X-Change-Message": "sse interop, back"})
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
