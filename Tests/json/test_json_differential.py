"""Differential test of FlagKit's JSON parser (the trust boundary: every document, envelope and request body
goes through it) against Python's json module, on documents Hypothesis generates.

- Everything Python serializes from a JSON value, in any style (indentation, separators, ASCII escapes), FlagKit
  accepts, and it reads the same value.
- Texts mutated from those (a byte inserted, deleted or replaced): FlagKit accepts exactly what strict Python
  accepts (no NaN/Infinity), except where FlagKit is stricter by design (docs/architecture.md: unpaired surrogate
  escapes and nesting deeper than 256 are refused; Python reads both), and it reads the same value.

The oracle is Tests/JSONOracle (the `json-oracle` executable, FlagKit's parser), one process for the whole run.
"""
import base64
import json
import math
import os
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

ORACLE = os.environ.get("JSON_ORACLE", ".build/debug/json-oracle")


@pytest.fixture(scope="module")
def oracle():
    process = subprocess.Popen([ORACLE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    def ask(data: bytes) -> tuple[str, str]:
        process.stdin.write(base64.b64encode(data) + b"\n")
        process.stdin.flush()
        answer = process.stdout.readline().decode("utf-8").rstrip("\n")
        verdict, _, rest = answer.partition(" ")
        return verdict, rest
    yield ask
    process.stdin.close()
    assert process.wait(timeout=10) == 0


def strict_loads(text: str):
    def refuse(name):
        raise ValueError(f"non-standard constant {name}")
    return json.loads(text, parse_constant=refuse)


def same(a, b) -> bool:
    """JSON equality: numbers by value (FlagKit stores 1.0 as the integer 1), objects and arrays by members."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def as_flagkit_reads(value):
    """What FlagKit reads for a Python value: an integer outside Int64 becomes a Double (docs/architecture.md,
    "Integers are integers"); OverflowError when not even a Double holds it."""
    if isinstance(value, bool) or value is None or isinstance(value, (float, str)):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else float(value)
    if isinstance(value, list):
        return [as_flagkit_reads(v) for v in value]
    return {k: as_flagkit_reads(v) for k, v in value.items()}


scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
values = st.recursive(scalars, lambda children: st.lists(children, max_size=5)
                      | st.dictionaries(st.text(max_size=8), children, max_size=5), max_leaves=25)
styles = st.fixed_dictionaries({
    "ensure_ascii": st.booleans(),
    "indent": st.none() | st.integers(min_value=0, max_value=3),
    "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (" ,", " : ")]),
})


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=values, style=styles)
def test_everything_python_writes_is_read_as_the_same_value(oracle, value, style):
    text = json.dumps(value, **style)
    verdict, canonical = oracle(text.encode("utf-8"))
    assert verdict == "ok", f"FlagKit refused {text!r}: {canonical}"
    assert same(json.loads(canonical), value), f"{text!r} read as {canonical!r}"


def mutations():
    @st.composite
    def mutated(draw):
        data = bytearray(json.dumps(draw(values), ensure_ascii=draw(st.booleans())).encode("utf-8"))
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            kind = draw(st.sampled_from(["insert", "delete", "replace"]))
            at = draw(st.integers(min_value=0, max_value=len(data)))
            byte = draw(st.sampled_from(list(b'{}[]",:\\ \t\n-+.eE0123456789tfnaulrsx') + [0x00, 0x01, 0x7f, 0xc3, 0xff, 0xe2, 0x80]))
            if kind == "insert":
                data.insert(at, byte)
            elif data and at < len(data):
                if kind == "delete":
                    del data[at]
                else:
                    data[at] = byte
        return bytes(data)
    return mutated()


def _has_infinity(value) -> bool:
    if isinstance(value, float):
        return math.isinf(value)
    if isinstance(value, list):
        return any(_has_infinity(v) for v in value)
    if isinstance(value, dict):
        return any(_has_infinity(v) for v in value.values())
    return False


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutations())
def test_mutated_texts_are_accepted_exactly_when_strict_python_accepts_them(oracle, data):
    try:
        expected = strict_loads(data.decode("utf-8"))
        python_accepts = True
    except (ValueError, UnicodeDecodeError, RecursionError):
        python_accepts = False
    verdict, detail = oracle(data)
    if python_accepts and verdict == "err" and SURROGATE_ESCAPE.search(data.decode("utf-8")):
        return  # stricter by design: an unpaired surrogate escape is not text (RFC 8259 section 8.2)
    if python_accepts:
        try:
            expected = as_flagkit_reads(expected)
            finite = not _has_infinity(expected)
        except OverflowError:
            finite = False
        if not finite and verdict == "err":
            return  # stricter by design: a number beyond Double's range is refused (Python reads inf or a big int)
    assert (verdict != "err") == python_accepts, f"{data!r}: python {'accepts' if python_accepts else 'refuses'}, FlagKit {verdict} {detail}"
    if python_accepts and verdict == "ok":
        assert same(json.loads(detail), expected), f"{data!r} read as {detail!r}, python {expected!r}"


def test_nesting_limit_is_stricter_than_python_on_purpose(oracle):
    deep = ("[" * 257 + "]" * 257).encode()
    assert strict_loads(deep.decode()) is not None
    assert oracle(deep)[0] == "err"
    assert oracle(("[" * 256 + "]" * 256).encode())[0] == "ok"
