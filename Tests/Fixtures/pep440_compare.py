#!/usr/bin/env python3
"""Answers, for pairs of version strings, how Python's packaging reads and
orders them, for the pep440 scheme's differential test.

Reads one JSON array of two strings a line on stdin. Prints first
"packaging VERSION", then a line a pair: "older", "same", "newer" or
"invalid" (either is no version), then the canonical text of each,
str(Version(x)), or "-" for one that is no version; space-separated
(canonical text has no spaces).
"""
import json
import sys

import packaging
from packaging.version import Version


def read(text):
    # InvalidVersion is a ValueError; so is int()'s refusal of a number past
    # sys.get_int_max_str_digits(), which Version lets through.
    try:
        return Version(text)
    except ValueError:
        return None


def main():
    out = sys.stdout
    out.write(f"packaging {packaging.__version__}\n")
    for line in sys.stdin:
        left, right = json.loads(line)
        a, b = read(left), read(right)
        if a is None or b is None:
            order = "invalid"
        else:
            order = "older" if a < b else ("same" if a == b else "newer")
        shown = ["-" if v is None else str(v) for v in (a, b)]
        out.write(f"{order} {shown[0]} {shown[1]}\n")


main()
