"""Prints the verdict table of test_appstore_peer.py after the run: each case with Apple's VerificationStatus and,
when a flagserver was tested, its HTTP status and reason code."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


def pytest_terminal_summary(terminalreporter):
    module = sys.modules.get("test_appstore_peer")
    if module is None or not module.TABLE:
        return
    write = terminalreporter.write_line
    write("")
    write(f"{'case':<40} {'Apple (VerificationStatus)':<28} {'flagserver':<10} {'reason':<38} note")
    for case in module.WORLD.cases:
        row = module.TABLE.get(case.name, {})
        http = row.get("http", "-")
        write(f"{case.name:<40} {row.get('apple', '-'):<28} {str(http):<10} {row.get('code') or '':<38} {case.note}")
