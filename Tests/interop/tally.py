"""Counting checks for the interop scripts: each failed check is one `FAIL ...` line on standard error, and the
script ends with `NAME: N passed, M failed` and exit status 1 when anything failed."""

import sys


class Tally:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, ok, message):
        """Counts `ok`; prints `message` when it is false. Returns `ok`, so a check can guard what follows."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {message}", file=sys.stderr)
        return ok

    def finish(self):
        """Prints the summary line; the exit status (1 when anything failed)."""
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
