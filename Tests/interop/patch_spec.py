#!/usr/bin/env python3
"""Prints the OFREP spec with our three documented deviations applied (docs/ofrep.md, "Spec deviations"):

1. `evaluationSuccess`'s value-type `oneOf` becomes `anyOf`: `codeDefaultFlag` (an object with no
   required property) matches every response, and an integer matches both `integerFlag` and
   `floatFlag`, so no success response can match exactly one branch.
2. `DEFAULT` joins the success `reason` enum: it is OpenFeature's reason when no rule matched
   (https://openfeature.dev/specification/types/#resolution-reason, which the spec itself cites).
3. `context.targetingKey` is no longer `required`: a context without one is served for every flag whose
   answer does not depend on it (only flags that reach a rollout answer TARGETING_KEY_MISSING).
Exits non-zero when the text to patch is not found (the spec changed: look again).
"""
import sys

text = open(sys.argv[1], encoding="utf-8").read()
replacements = [
    ("        - oneOf:\n            - $ref: \"#/components/schemas/booleanFlag\"",
     "        - anyOf:\n            - $ref: \"#/components/schemas/booleanFlag\""),
    ("enum: [STATIC, TARGETING_MATCH, SPLIT, DISABLED, UNKNOWN]",
     "enum: [STATIC, TARGETING_MATCH, SPLIT, DEFAULT, DISABLED, UNKNOWN]"),
    ("      required:\n        - targetingKey\n      properties:\n        targetingKey:",
     "      properties:\n        targetingKey:"),
]
for old, new in replacements:
    if text.count(old) != 1:
        sys.exit(f"patch_spec: expected exactly one occurrence of {old!r}")
    text = text.replace(old, new)
sys.stdout.write(text)
