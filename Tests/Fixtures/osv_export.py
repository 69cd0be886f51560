#!/usr/bin/env python3
"""Writes a synthetic OSV export, a zip of one deflated JSON record per
entry as osv.dev's ECOSYSTEM/all.zip is, of about SIZE MiB, for
`ssvc-bench archive` and `ssvc-bench daemon --only advisories` to measure.
Not used by the tests.

Usage: osv_export.py SIZE_MIB OUTPUT.zip [--package NAME [--records N]]

The packages are random pairs of words. --package adds N records (20 by
default) of PyPI package NAME first, so that a query for it finds some:
the even ones affect version 1.0 (fixed in a later 1.x), the odd ones
only 2.0 and later. The random records after them are drawn as they are
without it.
"""
import argparse
import json
import os
import random
import zipfile

arguments = argparse.ArgumentParser(description="Write a synthetic OSV export.")
arguments.add_argument("size", type=int, help="about this many MiB")
arguments.add_argument("output")
arguments.add_argument("--package", help="a PyPI package to add records of")
arguments.add_argument("--records", type=int, default=20, help="how many records of --package")
options = arguments.parse_args()
size, output = options.size << 20, options.output
rng = random.Random(11)
words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(2, 11))) for _ in range(3000)]
# Advisory texts, 1 to 40 KiB of words; each entry is compressed on its own,
# so entries sharing a text compress no better than apart.
details = [" ".join(rng.choice(words) for _ in range(rng.randrange(150, 6000))) for _ in range(400)]

with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
    extra = options.records if options.package else 0
    for index in range(extra):
        affects = index % 2 == 0
        record = {
            "schema_version": "1.7.0",
            "id": "PYSEC-2026-%d" % (index + 1),
            "modified": "2026-11-%02dT00:00:00Z" % (index % 28 + 1),
            "aliases": ["CVE-2026-%d" % (90000 + index)],
            "summary": "synthetic advisory %d of %s" % (index + 1, options.package),
            "details": details[index % len(details)],
            "affected": [{
                "package": {"ecosystem": "PyPI", "name": options.package},
                "ranges": [{"type": "ECOSYSTEM", "events": [
                    {"introduced": "0" if affects else "2.0"}, {"fixed": "1.%d" % (index + 1) if affects else "3.%d" % index}]}],
                "versions": ["1.0", "1.0.1"] if affects else ["2.0", "2.1"],
            }],
            "references": [{"type": "ADVISORY", "url": "https://example.org/advisory/%d" % (index + 1)}],
            "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
        }
        archive.writestr(record["id"] + ".json", json.dumps(record, indent=2))
    number = 0
    while os.path.getsize(output) < size:
        for _ in range(500):
            number += 1
            record = {
                "schema_version": "1.7.0",
                "id": "PYSEC-%d-%d" % (2015 + number % 11, number),
                "modified": "2026-%02d-%02dT%02d:00:00Z" % (number % 12 + 1, number % 28 + 1, number % 24),
                "aliases": ["CVE-%d-%d" % (2015 + number % 11, rng.randrange(100000)), "GHSA-%s" % "-".join(
                    "".join(rng.choice("23456789cfghjmpqrvwx") for _ in range(4)) for _ in range(3))],
                "summary": " ".join(rng.choice(words) for _ in range(12)),
                "details": rng.choice(details),
                "affected": [{
                    "package": {"ecosystem": "PyPI", "name": rng.choice(words) + "-" + rng.choice(words),
                                "purl": "pkg:pypi/%s" % rng.choice(words)},
                    "ranges": [{"type": "ECOSYSTEM", "events": [
                        {"introduced": "0"}, {"fixed": "%d.%d.%d" % (rng.randrange(10), rng.randrange(40), rng.randrange(100))}]}],
                    "versions": ["%d.%d.%d" % (major, minor, rng.randrange(20))
                                 for major in range(rng.randrange(1, 4)) for minor in range(rng.randrange(1, 25))],
                }],
                "references": [{"type": "WEB", "url": "https://example.org/%s/%d" % (rng.choice(words), n)} for n in range(rng.randrange(1, 8))],
                "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
            }
            archive.writestr(record["id"] + ".json", json.dumps(record, indent=2))
print("%d records, %d bytes" % (extra + number, os.path.getsize(output)))
