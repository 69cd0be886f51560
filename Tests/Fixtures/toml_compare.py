#!/usr/bin/env python3
"""Compares what ssvcd's configuration loader accepts and reads with
Python's tomllib (a TOML 1.0 parser in the standard library), on generated
configuration-shaped files and on mutations of them.

usage: toml_compare.py SSVCD FOLDER [COUNT] [SEED]

For each file, `SSVCD --print-toml FILE` prints the file as the loader read
it, in toml-test's JSON form, or fails with exit 78. Both parsers must
accept or both reject, and where both accept they must read the same
values. Prints one line per disagreement, then a summary line
"N passed, M failed"; exits 1 when any disagreed.
"""
import datetime
import json
import math
import os
import random
import subprocess
import sys
import tomllib

ssvcd, folder = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 25)

BARE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


def key():
    choice = rng.random()
    if choice < 0.7:
        return "".join(rng.choice(BARE) for _ in range(rng.randint(1, 10)))
    if choice < 0.85:
        return json.dumps("".join(rng.choice(BARE + " .é") for _ in range(rng.randint(0, 8))), ensure_ascii=rng.random() < 0.5)
    return "'" + "".join(rng.choice(BARE + " .\"") for _ in range(rng.randint(0, 8))) + "'"


def string():
    text = "".join(rng.choice(BARE + " /:.@é\t\\\"'") for _ in range(rng.randint(0, 20)))
    kind = rng.random()
    if kind < 0.5:
        return json.dumps(text, ensure_ascii=rng.random() < 0.5)
    if kind < 0.7 and "'" not in text:
        return "'" + text + "'"
    if kind < 0.85:
        return '"""\n' + text.replace("\\", "\\\\").replace('"', '\\"') + '\\\n  end"""'
    return "'''" + text.replace("'", "") + "'''"


def integer():
    value = rng.choice([0, 1, -1, 30, 600, 3600, 1 << 20, 2**63 - 1, -(2**63), rng.randint(-10**6, 10**6)])
    form = rng.random()
    if form < 0.15 and value >= 0:
        return hex(value)
    if form < 0.25 and value >= 0:
        return "0o%o" % value
    if form < 0.3 and value >= 0:
        return bin(value)
    if form < 0.4 and abs(value) >= 1000:
        digits = str(abs(value))
        grouped = ",".join(digits[max(i - 3, 0):i] for i in range(len(digits), 0, -3)[::-1]).replace(",", "_")
        return ("-" if value < 0 else "") + grouped
    return ("+" if value > 0 and rng.random() < 0.1 else "") + str(value)


def floating():
    return rng.choice(["0.5", "1e308", "-0.0", "3.14159", "1_000.5", "6.02e23", "1E-7", "inf", "-inf", "+inf", "nan", "2.5e+3"])


def value(depth=0):
    kind = rng.random()
    if depth < 3 and kind < 0.12:
        items = [value(depth + 1) for _ in range(rng.randint(0, 4))]
        separator = rng.choice([", ", ",\n  ", " , "])
        trailing = "," if items and rng.random() < 0.3 else ""
        return "[" + separator.join(items) + trailing + "]"
    if depth < 3 and kind < 0.2:
        pairs = [f"{key()} = {value(depth + 1)}" for _ in range(rng.randint(0, 3))]
        return "{ " + ", ".join(pairs) + " }"
    if kind < 0.5:
        return string()
    if kind < 0.7:
        return integer()
    if kind < 0.8:
        return floating()
    if kind < 0.9:
        return rng.choice(["true", "false"])
    return rng.choice([
        "1979-05-27T07:32:00Z", "1979-05-27", "07:32:00", "1979-05-27T00:32:00.999999-07:00", "2024-02-29 23:59:59.5z",
        "1987-07-05T17:45:00+05:30", "00:00:00.25", "1979-05-27T07:32:00", "2000-02-29 00:00:00.125",
    ])


def document():
    lines = []
    for _ in range(rng.randint(0, 4)):
        lines.append(f"{key()} = {value()}")
    for _ in range(rng.randint(0, 4)):
        header = ".".join(key() for _ in range(rng.randint(1, 3)))
        lines.append(rng.choice([f"[{header}]", f"[[{header}]]", f"[ {header} ]"]))
        for _ in range(rng.randint(0, 5)):
            dotted = ".".join(key() for _ in range(rng.randint(1, 2)))
            comment = "  # note" if rng.random() < 0.2 else ""
            lines.append(f"{dotted} = {value()}{comment}")
        if rng.random() < 0.3:
            lines.append("# a comment line")
    return "\n".join(lines) + "\n"


SIGNIFICANT = list("[]=\"'.,{}\n# \\a1_+-:")


def mutate(text):
    data = list(text)
    for _ in range(rng.randint(1, 3)):
        action = rng.random()
        position = rng.randint(0, len(data))
        if action < 0.4 and data:
            del data[min(position, len(data) - 1)]
        elif action < 0.8:
            data.insert(position, rng.choice(SIGNIFICANT))
        else:
            lines = "".join(data).split("\n")
            if len(lines) > 1:
                lines.insert(rng.randint(0, len(lines)), rng.choice(lines))
            data = list("\n".join(lines))
    return "".join(data)


class OutOfRange(Exception):
    pass


def tagged(obj):
    if isinstance(obj, dict):
        return {k: tagged(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [tagged(v) for v in obj]
    if isinstance(obj, bool):
        return {"type": "bool", "value": "true" if obj else "false"}
    if isinstance(obj, int):
        # TOML 1.0: an integer that does not fit 64 bits must be an error;
        # tomllib keeps it as a Python int.
        if not -(2**63) <= obj < 2**63:
            raise OutOfRange(obj)
        return {"type": "integer", "value": str(obj)}
    if isinstance(obj, float):
        return {"type": "float", "value": obj}
    if isinstance(obj, str):
        return {"type": "string", "value": obj}
    name = type(obj).__name__
    kind = {"datetime": "datetime", "date": "date-local", "time": "time-local"}[name]
    if kind == "datetime" and obj.tzinfo is None:
        kind = "datetime-local"
    return {"type": kind, "value": obj}


def moment(kind, text):
    """Our text of a date or time as the value it names, for comparing
    with tomllib's: a date-time with an offset as its instant."""
    try:
        if kind == "date-local":
            return datetime.date.fromisoformat(text)
        if kind == "time-local":
            return datetime.time.fromisoformat(text)
        return datetime.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None


def same(ours, theirs):
    if isinstance(theirs, dict) and set(theirs) == {"type", "value"} and isinstance(ours, dict) and "type" in ours:
        if theirs["type"] == "float":
            mine = float(ours["value"])
            return ours["type"] == "float" and (mine == theirs["value"] or (math.isnan(mine) and math.isnan(theirs["value"])))
        if isinstance(theirs["value"], (datetime.datetime, datetime.date, datetime.time)):
            return ours["type"] == theirs["type"] and moment(ours["type"], ours["value"]) == theirs["value"]
        return ours == theirs
    if isinstance(theirs, dict) and isinstance(ours, dict):
        return ours.keys() == theirs.keys() and all(same(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list) and isinstance(ours, list):
        return len(ours) == len(theirs) and all(same(a, b) for a, b in zip(ours, theirs))
    return False


os.makedirs(folder, exist_ok=True)
passed = failed = accepted = 0
for index in range(count):
    text = document()
    if index % 2 == 1:
        text = mutate(text)
    path = os.path.join(folder, "case-%04d.toml" % index)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        theirs = tagged(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, OutOfRange):
        theirs = None
    result = subprocess.run([ssvcd, "--print-toml", path], capture_output=True, text=True, timeout=30)
    if result.returncode not in (0, 78):
        verdict = "ssvcd exited %d: %s" % (result.returncode, result.stderr.strip()[:200])
    elif (result.returncode == 0) != (theirs is not None):
        verdict = "ssvcd %s, tomllib %s" % ("accepts" if result.returncode == 0 else "rejects (" + result.stderr.strip()[:160] + ")",
                                           "accepts" if theirs is not None else "rejects")
    elif theirs is not None and not same(json.loads(result.stdout), theirs):
        verdict = "both accept, but read different values"
    else:
        verdict = None
    if verdict:
        failed += 1
        print("%s: %s" % (path, verdict))
    else:
        passed += 1
        accepted += theirs is not None
print("files: %d generated or mutated, %d valid TOML" % (count, accepted))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
