#!/usr/bin/env python3
"""Scores CVSS v3.0 and v3.1 vectors with Red Hat's `cvss` package, the
oracle CVSSVectorTests compares CVSSVector with.

Prints one line per vector, tab-separated:
  OK  <vector>  <base score>  <severity>   the package accepts and scores it
  ERR <vector>                              the package refuses it
First every base vector of both versions (2,592 each), then COUNT random
vectors with temporal and environmental metrics in shuffled order, and
COUNT mutated ones (a part dropped, doubled or altered), from SEED.

Exits 3 when the package is missing (make test-deps installs it).
Usage: cvss3_oracle.py COUNT SEED
"""
import itertools
import random
import sys

try:
    from cvss import CVSS3
    from cvss.exceptions import CVSS3Error
except ImportError:
    print("the Python package cvss is missing: make test-deps, or pip install cvss", file=sys.stderr)
    sys.exit(3)

BASE = [
    ("AV", "NALP"), ("AC", "LH"), ("PR", "NLH"), ("UI", "NR"),
    ("S", "UC"), ("C", "HLN"), ("I", "HLN"), ("A", "HLN"),
]
OTHER = [
    ("E", "XHFPU"), ("RL", "XUWTO"), ("RC", "XCRU"),
    ("CR", "XHML"), ("IR", "XHML"), ("AR", "XHML"),
    ("MAV", "XNALP"), ("MAC", "XLH"), ("MPR", "XNLH"), ("MUI", "XNR"),
    ("MS", "XUC"), ("MC", "XHLN"), ("MI", "XHLN"), ("MA", "XHLN"),
]


def judge(vector):
    try:
        parsed = CVSS3(vector)
    except CVSS3Error:
        return "ERR\t" + vector
    return "OK\t%s\t%s\t%s" % (vector, parsed.base_score, parsed.severities()[0])


def mutated(rng, vector):
    parts = vector.split("/")
    choice = rng.randrange(6)
    index = rng.randrange(1, len(parts))
    if choice == 0:
        del parts[index]
    elif choice == 1:
        parts.insert(rng.randrange(1, len(parts) + 1), parts[index])
    elif choice == 2:
        name = parts[index].split(":")[0]
        parts[index] = name + ":" + rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    elif choice == 3:
        parts[index] = parts[index].lower()
    elif choice == 4:
        parts.insert(index, rng.choice(["ZZ:A", "Au:N", "AV", ":N", ""]))
    else:
        parts[0] = rng.choice(["CVSS:3.2", "CVSS:2.0", "CVSS:4.0", "cvss:3.1", "CVSS3.1"])
    return "/".join(parts)


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    lines = []
    for version in ("3.0", "3.1"):
        for values in itertools.product(*(choices for _, choices in BASE)):
            parts = ["%s:%s" % (name, value) for (name, _), value in zip(BASE, values)]
            lines.append(judge("CVSS:%s/%s" % (version, "/".join(parts))))
    rng = random.Random(seed)
    for _ in range(count):
        parts = ["%s:%s" % (name, rng.choice(choices)) for name, choices in BASE]
        parts += ["%s:%s" % (name, rng.choice(choices)) for name, choices in OTHER if rng.random() < 0.5]
        rng.shuffle(parts)
        vector = "CVSS:%s/%s" % (rng.choice(["3.0", "3.1"]), "/".join(parts))
        lines.append(judge(vector))
        lines.append(judge(mutated(rng, vector)))
    sys.stdout.write("\n".join(lines) + "\n")


main()
