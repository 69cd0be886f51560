#!/usr/bin/env python3
"""What a short script does with an OSV export, beside `ssvc-bench archive
--ecosystem E --package P --version V`: every .json entry read with
zipfile (CRC checked) and parsed with json, the records of one package
kept, and the simple part of the evaluation done on them. Prints the
counts, the time and the peak RSS. Not used by the tests.

Usage: osv_filter.py EXPORT.zip --ecosystem E --package P --version V

A record is the package's when one of its affected[].package has the
ecosystem and the name (PyPI names compared as PEP 503 normalizes them).
It affects V when it is not withdrawn and V is in that entry's versions
(the same string), or in one of its ECOSYSTEM or SEMVER ranges whose
events are all dotted numbers (compared as tuples of integers; no
pre-releases, epochs or Debian revisions). Other ranges are counted as
not evaluated. ssvc's evaluator does all of it in each ecosystem's order.
"""
import argparse
import json
import re
import resource
import time
import zipfile


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def normalized(name, ecosystem):
    return re.sub(r"[-_.]+", "-", name).lower() if ecosystem == "PyPI" else name


def numbers(version):
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*", version):
        return None
    return tuple(int(part) for part in version.split("."))


def in_range(events, running):
    """True or False when every event is a dotted number, else None."""
    points = []
    for event in events:
        if len(event) != 1:
            return None
        (kind, version), = event.items()
        if kind == "limit":
            return None
        at = (-1,) if kind == "introduced" and version == "0" else numbers(version)
        if at is None:
            return None
        points.append((at, 0 if kind == "introduced" else 1, kind))
    affected = False
    for at, _, kind in sorted(points):
        if kind == "introduced" and running >= at:
            affected = True
        elif kind == "fixed" and running >= at:
            affected = False
        elif kind == "last_affected" and running > at:
            affected = False
    return affected


arguments = argparse.ArgumentParser(description="Filter an OSV export with zipfile and json.")
arguments.add_argument("export")
arguments.add_argument("--ecosystem", required=True)
arguments.add_argument("--package", required=True)
arguments.add_argument("--version", required=True)
options = arguments.parse_args()
package = normalized(options.package, options.ecosystem)
running = numbers(options.version)

before = peak_mib()
started = time.monotonic()
read = problems = unevaluated = 0
matching = []
affecting = []
with zipfile.ZipFile(options.export) as archive:
    for entry in archive.infolist():
        if entry.is_dir() or not entry.filename.lower().endswith(".json"):
            continue
        read += 1
        try:
            record = json.loads(archive.read(entry))
        except (ValueError, zipfile.BadZipFile):
            problems += 1
            continue
        affects = False
        ours = False
        for affected in record.get("affected", []):
            named = affected.get("package", {})
            if named.get("ecosystem") != options.ecosystem or normalized(named.get("name", ""), options.ecosystem) != package:
                continue
            ours = True
            if options.version in affected.get("versions", []):
                affects = True
            for version_range in affected.get("ranges", []):
                verdict = None
                if version_range.get("type") in ("ECOSYSTEM", "SEMVER") and running is not None:
                    verdict = in_range(version_range.get("events", []), running)
                if verdict is None:
                    unevaluated += 1
                affects = affects or bool(verdict)
        if ours:
            matching.append(record["id"])
            if affects and "withdrawn" not in record:
                affecting.append(record["id"])
seconds = time.monotonic() - started
print("osv_filter.py: %d records read, %d of %s, %d affecting %s (%d unreadable, %d ranges not evaluated) in %.2f s; "
      "peak RSS %.1f MiB before, %.1f MiB after [zipfile + json, resource.getrusage ru_maxrss]"
      % (read, len(matching), options.package, len(affecting), options.version, problems, unevaluated, seconds,
         before, peak_mib()))
