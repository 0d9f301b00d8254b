#!/usr/bin/env python3
"""Self-test of deploy/testing/history-check.py: a good history passes, and each rule catches the history made to
break it (deploy/test-partitions.sh runs it first; `python3 deploy/testing/history-check-test.py`)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("history_check", os.path.join(here, "history-check.py"))
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def event(op, target, start, end, status=200, version=None, content_hash=None, code=None, unreachable=None):
    return {"op": op, "target": target, "start": start, "end": end, "status": status, "version": version,
            "hash": content_hash, "code": code, "unreachable": unreachable}


HISTORY = {1: "a" * 64, 2: "b" * 64, 3: "c" * 64}


def good():
    return [
        event("read", "app1", 0.0, 0.1, version=1, content_hash=HISTORY[1]),
        event("write", "app1", 1.0, 1.2, version=2, content_hash=HISTORY[2]),
        event("write", "front", 1.1, 1.3, status=503, code="database_unavailable"),
        # app2 has not caught up yet: allowed (only its own acknowledgements bind it), and counted as stale.
        event("read", "app2", 1.4, 1.5, version=1, content_hash=HISTORY[1], unreachable="3"),
        event("read", "app1", 1.3, 1.4, version=2, content_hash=HISTORY[2]),
        event("write", "app2", 2.0, 2.2, version=3, content_hash=HISTORY[3]),
        event("read", "app2", 2.3, 2.4, version=3, content_hash=HISTORY[3]),
        event("read", "front", 2.5, 2.6, version=2, content_hash=HISTORY[2]),
        event("read", "app1", 3.0, 3.1, version=3, content_hash=HISTORY[3]),
    ]


class HistoryCheckTests(unittest.TestCase):
    def rules(self, events, history=HISTORY):
        return sorted({rule for rule, _ in check.violations(events, history)})

    def test_a_good_history_passes(self):
        self.assertEqual(self.rules(good()), [])
        figures = dict(check.figures(good(), HISTORY))
        self.assertEqual(figures["versions_lost"], 0)
        self.assertEqual(figures["writes_503"], 1)
        self.assertEqual(figures["app2_stale_window_seconds"], "0.1")
        self.assertEqual(figures["app2_unreachable_header_seconds"], "0.1")
        self.assertEqual(figures["app1_stale_window_seconds"], "0.0")

    def test_an_acknowledged_version_missing_or_changed_in_the_final_history_is_lost(self):
        self.assertEqual(self.rules(good(), {1: HISTORY[1], 2: HISTORY[2]}), ["acknowledged"])
        changed = dict(HISTORY)
        changed[3] = "d" * 64
        self.assertIn("acknowledged", self.rules(good(), changed))
        self.assertEqual(dict(check.figures(good(), {1: HISTORY[1], 2: HISTORY[2]}))["versions_lost"], 1)

    def test_a_number_with_two_contents_is_assigned_twice(self):
        events = good() + [event("read", "app3", 2.5, 2.6, version=3, content_hash="e" * 64)]
        self.assertIn("assigned-once", self.rules(events))

    def test_a_node_going_backwards_is_caught_but_not_the_front(self):
        events = good() + [event("read", "app1", 3.5, 3.6, version=2, content_hash=HISTORY[2])]
        self.assertIn("monotonic", self.rules(events))
        events = good() + [event("read", "front", 3.5, 3.6, version=1, content_hash=HISTORY[1])]
        self.assertEqual(self.rules(events), [])

    def test_a_read_after_the_nodes_own_acknowledgement_must_see_it(self):
        events = [e for e in good() if not (e["target"] == "app2" and e["op"] == "read" and e["version"] == 3)]
        events.append(event("read", "app2", 2.3, 2.4, version=2, content_hash=HISTORY[2]))
        self.assertEqual(self.rules(events), ["read-own-ack"])
        # A read that started before the acknowledgement ended may miss it.
        events[-1] = event("read", "app2", 2.1, 2.4, version=2, content_hash=HISTORY[2])
        self.assertEqual(self.rules(events), [])

    def test_the_command_exits_1_on_a_violation_and_prints_window_figures(self):
        with tempfile.TemporaryDirectory() as directory:
            events_path, history_path = os.path.join(directory, "events"), os.path.join(directory, "history")
            with open(events_path, "w") as file:
                file.writelines(json.dumps(e) + "\n" for e in good())
            with open(history_path, "w") as file:
                file.writelines(f"{n} {h}\n" for n, h in HISTORY.items())
            script = os.path.join(here, "history-check.py")
            ok = subprocess.run([sys.executable, script, events_path, history_path, "cut:1.0:1.5"],
                                capture_output=True, text=True)
            self.assertEqual(ok.returncode, 0, ok.stdout)
            self.assertIn("FIGURE cut_writes_503 1\n", ok.stdout)
            self.assertIn("history-check: 0 violations", ok.stdout)
            with open(history_path, "w") as file:
                file.write(f"1 {HISTORY[1]}\n")
            bad = subprocess.run([sys.executable, script, events_path, history_path], capture_output=True, text=True)
            self.assertEqual(bad.returncode, 1, bad.stdout)
            self.assertIn("VIOLATION acknowledged", bad.stdout)


if __name__ == "__main__":
    unittest.main()
