#!/usr/bin/env python3
"""Writes docs/evaluation-vectors.json: vectors for before/after and firstInstallDate (docs/flag-document.md).

Every expected value, variant and reason below is written by hand from the rules in docs/flag-document.md,
not computed by FlagKit: FlagKit's tests (and OFREP's and flagctl's) check the implementation against them.
"""
import json
import os
doc = {
 "flags": {
  "premiumFeaturesLocked": {"type": "boolean", "default": False, "rules": [
    {"cohort": "earlyUsers", "value": False},
    {"cohort": "installedSinceSwitch", "value": True}]},
  "installYearBadge": {"type": "string", "default": "none", "rules": [
    {"cohort": "installedIn2026", "value": "2026"},
    {"cohort": "installDateUnknown", "value": "unknown"},
    {"cohort": "notBeforeSwitch", "value": "not-before-switch"}]},
  "notBeforeSwitchLike": {"type": "boolean", "default": False, "rules": [
    {"cohort": "notBeforeSwitch", "value": True}]},
  "trialReminder": {"type": "boolean", "default": False, "rules": [
    {"cohort": "trialStartedIn2026", "value": True}]}
 },
 "cohorts": {
  "earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
  "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}},
  "installedIn2026": {"firstInstallDate": {"after": "2025-12-31T23:59:59.999Z", "before": "2027-01-01T00:00:00+00:00"}},
  "installDateUnknown": {"firstInstallDate": {"exists": False}},
  "notBeforeSwitch": {"not": {"firstInstallDate": {"before": "2027-03-01T01:00:00+01:00"}}},
  "trialStartedIn2026": {"trialStartedAt": {"after": "2025-12-31T23:59:59Z", "before": "2027-01-01T00:00:00Z"}}
 }
}
P = "premiumFeaturesLocked"
cases = []
def case(note, date, flag, value, variant, reason, invalid=False, extra=None):
    ctx = {"targetingKey": "install-%d" % (len(cases) + 1)}
    if date is not ABSENT: ctx["firstInstallDate"] = date
    if extra: ctx.update(extra)
    c = {"note": note, "context": ctx, "flag": flag, "value": value, "variant": variant, "reason": reason}
    if invalid: c["invalidContext"] = True
    cases.append(c)
ABSENT = object()
early = (False, "rule-0", "TARGETING_MATCH"); late = (True, "rule-1", "TARGETING_MATCH"); neither = (False, "default", "DEFAULT")
case("long before the switch: early", "2026-11-20T08:15:00Z", P, *early)
case("1 ms before the switch: early", "2027-02-28T23:59:59.999Z", P, *early)
case("exactly the switch: neither before nor after (both strict), so the default", "2027-03-01T00:00:00Z", P, *neither)
case("1 ms after the switch: after", "2027-03-01T00:00:00.001Z", P, *late)
case("the switch written with +01:00 is the same instant: neither", "2027-03-01T01:00:00+01:00", P, *neither)
case("+01:00, one second before the switch in UTC: early", "2027-03-01T00:59:59+01:00", P, *early)
case("-05:00 naming the switch itself: neither", "2027-02-28T19:00:00-05:00", P, *neither)
case("-05:00, one second after the switch: after", "2027-02-28T19:00:01-05:00", P, *late)
case("-00:00 (offset unknown, RFC 3339 4.3) reads as UTC", "2027-03-01T00:00:01-00:00", P, *late)
case("fraction digits after the third are dropped: .0009 is the switch itself", "2027-03-01T00:00:00.0009Z", P, *neither)
case("nine fraction digits, truncated to the millisecond", "2027-03-01T00:00:00.000999999Z", P, *neither)
case("lowercase t and z are allowed", "2027-03-01t00:00:01z", P, *late)
case("a leap day", "2028-02-29T12:00:00Z", P, *late)
case("unknown date: never before, never after, so never locked", ABSENT, P, *neither)
case("date only: not a date-time (unknown in the app, refused over OFREP)", "2027-03-01", P, *neither, invalid=True)
case("no offset: ambiguous (unknown in the app, refused over OFREP)", "2027-03-01T00:00:01", P, *neither, invalid=True)
case("2027 has no February 29", "2027-02-29T00:00:00Z", P, *neither, invalid=True)
case("a leap second names no Unix time", "2027-03-01T00:00:60Z", P, *neither, invalid=True)
case("a number is not a date-time", 1803859200000, P, *neither, invalid=True)
case("text that is no date at all", "yesterday", P, *neither, invalid=True)
B = "installYearBadge"
case("first millisecond of 2026: after .999 of 2025 and before 2027", "2026-01-01T00:00:00Z", B, "2026", "rule-0", "TARGETING_MATCH")
case("last millisecond of 2025 equals the after bound: not in 2026", "2025-12-31T23:59:59.999Z", B, "none", "default", "DEFAULT")
case("last millisecond of 2026", "2026-12-31T23:59:59.999Z", B, "2026", "rule-0", "TARGETING_MATCH")
case("unknown date: only exists false holds", ABSENT, B, "unknown", "rule-1", "TARGETING_MATCH")
case("an unparsable date is unknown for exists too", "garbage", B, "unknown", "rule-1", "TARGETING_MATCH", invalid=True)
case("known and not before the switch", "2027-06-01T00:00:00Z", B, "not-before-switch", "rule-2", "TARGETING_MATCH")
N = "notBeforeSwitchLike"
case("not around before takes in unknown dates (why lint refuses such a lock)", ABSENT, N, True, "rule-0", "TARGETING_MATCH")
case("not around before, an early date", "2026-11-20T08:15:00Z", N, False, "default", "DEFAULT")
case("not around before, the switch itself (+01:00 operand)", "2027-03-01T00:00:00Z", N, True, "rule-0", "TARGETING_MATCH")
T = "trialReminder"
case("before/after on a custom attribute", ABSENT, T, True, "rule-0", "TARGETING_MATCH", extra={"trialStartedAt": "2026-05-01T10:00:00+02:00"})
case("a custom attribute that is not a date-time matches neither", ABSENT, T, False, "default", "DEFAULT", extra={"trialStartedAt": "May 2026"})
case("a custom number is not a date-time either", ABSENT, T, False, "default", "DEFAULT", extra={"trialStartedAt": 1777622400000})
case("custom, exactly the after bound: not after", ABSENT, T, False, "default", "DEFAULT", extra={"trialStartedAt": "2025-12-31T23:59:59Z"})

invalid = [
 {"condition": {"firstInstallDate": {"before": "2027-03-01"}}, "path": "/cohorts/c/firstInstallDate/before", "why": "an operand must be a full date-time"},
 {"condition": {"firstInstallDate": {"after": "2027-03-01T00:00:00"}}, "path": "/cohorts/c/firstInstallDate/after", "why": "an operand needs an offset"},
 {"condition": {"firstInstallDate": {"after": "2027-03-01T00:00:60Z"}}, "path": "/cohorts/c/firstInstallDate/after", "why": "no leap seconds"},
 {"condition": {"firstInstallDate": {"before": 1803859200000}}, "path": "/cohorts/c/firstInstallDate/before", "why": "an operand is a string"},
 {"condition": {"firstInstallDate": {"lt": "2027-03-01T00:00:00Z"}}, "path": "/cohorts/c/firstInstallDate/lt", "why": "firstInstallDate takes only before, after and exists"},
 {"condition": {"firstInstallDate": {"eq": "2027-03-01T00:00:00Z"}}, "path": "/cohorts/c/firstInstallDate/eq", "why": "firstInstallDate takes only before, after and exists"},
 {"condition": {"appVersion": {"before": "2027-03-01T00:00:00Z"}}, "path": "/cohorts/c/appVersion/before", "why": "versions compare with lt and gt"},
 {"condition": {"trialStartedAt": {"after": "soon"}}, "path": "/cohorts/c/trialStartedAt/after", "why": "on any attribute the operand is checked"},
]
out = {
 "description": "Evaluation vectors for the instant operators before and after and the built-in attribute firstInstallDate (docs/flag-document.md). Evaluate each case's flag in the document for its context: value, variant and reason must match. A case marked invalidContext has a firstInstallDate that is not an RFC 3339 date-time: local evaluation treats it as unknown (the expected result), OFREP refuses the request with 400 INVALID_CONTEXT and flagctl eval with a usage error. Each invalid condition, as cohort c of a document {\"flags\": {}, \"cohorts\": {\"c\": condition}}, must be refused with one problem at its path.",
 "document": doc,
 "cases": cases,
 "invalidConditions": invalid,
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "evaluation-vectors.json"), "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False); f.write("\n")
print(f"{len(cases)} cases, {len(invalid)} invalid conditions")
