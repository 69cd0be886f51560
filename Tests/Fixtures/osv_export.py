#!/usr/bin/env python3
"""Writes a synthetic OSV export, a zip of one deflated JSON record per
entry as osv.dev's ECOSYSTEM/all.zip is, of about SIZE MiB, for
`ssvc-bench archive` to measure. Not used by the tests.

Usage: osv_export.py SIZE_MIB OUTPUT.zip
"""
import json
import os
import random
import sys
import zipfile

size, output = int(sys.argv[1]) << 20, sys.argv[2]
rng = random.Random(11)
words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(2, 11))) for _ in range(3000)]
# Advisory texts, 1 to 40 KiB of words; each entry is compressed on its own,
# so entries sharing a text compress no better than apart.
details = [" ".join(rng.choice(words) for _ in range(rng.randrange(150, 6000))) for _ in range(400)]

with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
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
print("%d records, %d bytes" % (number, os.path.getsize(output)))
