#!/usr/bin/env python3
"""Makes the zip archives ZipArchiveTests reads, and says what Python's
zipfile reads from each, for the Swift reader to agree with.

For each NAME.zip in FOLDER it writes NAME.expect, lines of
  open-error <exception>                 zipfile cannot open the archive
  entry <name hex> <size> <crc> <blob offset or -1>
  entry-error <name hex> <exception>     zipfile cannot read that entry
and NAME.blob, the bytes of the entries it read (those up to 1 MiB), at
the offsets given. Archives made by patching bytes or by hand are read by
zipfile all the same, so each expectation is zipfile's, not this script's.

Usage: zip_fixtures.py FOLDER
"""
import io
import json
import os
import random
import struct
import sys
import zipfile
import zlib

FOLDER = sys.argv[1]
rng = random.Random(20260501)


def osv_record(number, padding=0):
    """An OSV-like JSON record."""
    identifier = "PYSEC-2026-%d" % number
    record = {
        "id": identifier,
        "modified": "2026-01-%02dT00:00:00Z" % (number % 28 + 1),
        "aliases": ["CVE-2026-%05d" % rng.randrange(100000)],
        "summary": "A flaw in package %d lets a remote attacker do thing %d" % (number, rng.randrange(1000)),
        "affected": [{
            "package": {"ecosystem": "PyPI", "name": "package-%d" % number},
            "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "%d.%d.%d" % (
                rng.randrange(10), rng.randrange(30), rng.randrange(100))}]}],
            "versions": ["%d.%d" % (rng.randrange(10), minor) for minor in range(rng.randrange(1, 30))],
        }],
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
    }
    if padding:
        # Four letters at random: deflate gets it to about a quarter.
        record["details"] = rng.randbytes(padding).translate(bytes(b"acgt"[n % 4] for n in range(256))).decode()
    return json.dumps(record, indent=1).encode()


def path(name):
    return os.path.join(FOLDER, name)


def expect(name):
    """Reads NAME.zip with zipfile and writes NAME.expect and NAME.blob."""
    lines = []
    blob = bytearray()
    try:
        archive = zipfile.ZipFile(path(name + ".zip"))
    except Exception as error:  # noqa: BLE001 - any failure is an expectation
        lines.append("open-error %s" % type(error).__name__)
    else:
        with archive:
            for info in archive.infolist():
                raw = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
                try:
                    data = archive.read(info)
                except Exception as error:  # noqa: BLE001
                    lines.append("entry-error %s %s" % (raw.hex() or "-", type(error).__name__))
                    continue
                offset = -1
                if len(data) <= 1 << 20:
                    offset = len(blob)
                    blob += data
                lines.append("entry %s %d %d %d" % (raw.hex() or "-", len(data), zlib.crc32(data), offset))
    with open(path(name + ".expect"), "w") as file:
        file.write("\n".join(lines) + "\n")
    with open(path(name + ".blob"), "wb") as file:
        file.write(blob)


def write(name, entries, comment=b"", **options):
    """entries: (name, bytes, method) tuples."""
    with zipfile.ZipFile(path(name + ".zip"), "w", **options) as archive:
        for entry_name, data, method in entries:
            archive.writestr(zipfile.ZipInfo(entry_name, (2026, 1, 1, 0, 0, 0)), data, compress_type=method)
        archive.comment = comment
    expect(name)


def patch(source, name, changes):
    """A copy of SOURCE.zip with (offset, bytes) changes, as NAME.zip."""
    data = bytearray(open(path(source + ".zip"), "rb").read())
    for offset, replacement in changes:
        data[offset:offset + len(replacement)] = replacement
    open(path(name + ".zip"), "wb").write(data)
    expect(name)


def raw(name, data):
    open(path(name + ".zip"), "wb").write(data)
    expect(name)


def offsets(name, signature):
    data = open(path(name + ".zip"), "rb").read()
    found, start = [], 0
    while (start := data.find(signature, start)) >= 0:
        found.append(start)
        start += 1
    return found


LOCAL, CENTRAL = b"PK\x03\x04", b"PK\x01\x02"
D, S = zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED

# Plain archives, as an OSV export is.
write("normal", [("PYSEC-2026-%d.json" % n, osv_record(n), D) for n in range(20)])
write("mixed", [
    ("stored.json", osv_record(1), S),
    ("deflated.json", osv_record(2), D),
    ("empty.json", b"", D),
    ("empty-stored", b"", S),
    ("folder/", b"", S),
    ("folder/binary.bin", bytes(rng.randrange(256) for _ in range(70000)), D),
    ("folder/zeros.bin", bytes(300000), D),
    ("unicode-\u00e9\u4e2d.json", osv_record(3), D),
], comment=b"an OSV export")
# A comment holding an end record's signature (zipfile takes it for the
# record and cannot open the archive).
write("comment-signature", [("one.json", osv_record(1), D)], comment=b"PK\x05\x06 is not the record")
write("empty", [])
write("unsupported", [
    ("before.json", osv_record(1), D),
    ("bzip2.json", osv_record(2), zipfile.ZIP_BZIP2),
    ("lzma.json", osv_record(3), zipfile.ZIP_LZMA),
    ("after.json", osv_record(4), D),
])

# ZIP64 local headers (force_zip64), and Python's ZIP64 end records
# (more than 65,535 entries).
with zipfile.ZipFile(path("zip64-forced.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
    for n in range(5):
        with archive.open("forced-%d.json" % n, "w", force_zip64=True) as entry:
            entry.write(osv_record(n))
expect("zip64-forced")
write("many", [("e/%05d.json" % n, b'{"id": "%d"}' % n, D if n % 3 else S) for n in range(70000)])

# Sizes written to a stream that cannot seek come after the data
# (data descriptors, flag bit 3).
class Unseekable(io.RawIOBase):
    def __init__(self, target):
        self.target = target

    def writable(self):
        return True

    def write(self, data):
        return self.target.write(data)


with open(path("streamed.zip"), "wb") as target:
    with zipfile.ZipFile(Unseekable(target), "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(4):
            archive.writestr("streamed-%d.json" % n, osv_record(n))
expect("streamed")


def zip64_by_hand():
    """Two entries whose sizes and offsets are all in ZIP64 extra fields,
    with a ZIP64 end record and locator, as zipfile only writes for
    archives over 4 GiB."""
    out = bytearray()
    records = bytearray()
    for n, (name, data) in enumerate([(b"hand-0.json", osv_record(10)), (b"hand-1.json", osv_record(11))]):
        packed = zlib.compressobj(6, zlib.DEFLATED, -15)
        compressed = packed.compress(data) + packed.flush()
        offset = len(out)
        local_extra = struct.pack("<HHQQ", 1, 16, len(data), len(compressed))
        out += struct.pack("<4sHHHHHIIIHH", LOCAL, 45, 0, 8, 0, 0, zlib.crc32(data), 0xFFFFFFFF, 0xFFFFFFFF,
                           len(name), len(local_extra)) + name + local_extra + compressed
        extra = struct.pack("<HHQQQ", 1, 24, len(data), len(compressed), offset)
        records += struct.pack("<4sHHHHHHIIIHHHHHII", CENTRAL, 45, 45, 0, 8, 0, 0, zlib.crc32(data),
                               0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0, 0xFFFFFFFF) + name + extra
    directory = len(out)
    out += records
    end64 = len(out)
    out += struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, 2, 2, len(records), directory)
    out += struct.pack("<4sIQI", b"PK\x06\x07", 0, end64, 1)
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return bytes(out)


raw("zip64-hand", zip64_by_hand())

# Hostile archives.
write("large", [("small.json", osv_record(1), D), ("large.json", osv_record(2, padding=50_000_000), D)])
write("bomb", [("before.json", osv_record(1), D), ("zeros.json", bytes(100_000_000), D), ("after.json", osv_record(2), D)])
write("evil", [
    ("../evil.json", osv_record(1), D),
    ("/etc/evil.json", osv_record(2), D),
    ("dir\\evil.json", osv_record(3), D),
    ("a/../../evil.json", osv_record(4), D),
    ("C:evil.json", osv_record(5), D),
    ("esc-\x1b[31m-\u202e.json", osv_record(6), D),
    ("NULxevil.json", osv_record(7), D),
    ("BYTExevil.json", osv_record(8), D),
    ("fine/../../../is-not.json", osv_record(9), D),
    ("fine.json", osv_record(10), D),
])
# A NUL and a byte that is not UTF-8 in names, in both headers.
data = open(path("evil.zip"), "rb").read()
patch("evil", "evil", [(at + 3, b"\x00") for at in range(len(data)) if data.startswith(b"NULxevil", at)]
      + [(at + 4, b"\xff") for at in range(len(data)) if data.startswith(b"BYTExevil", at)])

normal = open(path("normal.zip"), "rb").read()
for cut in (0, 3, 100, len(normal) // 2, len(normal) - 23, len(normal) - 22, len(normal) - 10, len(normal) - 1):
    raw("cut-%d" % cut, normal[:cut])
raw("random", bytes(rng.randrange(256) for _ in range(5000)))
raw("random-pk", LOCAL + bytes(rng.randrange(256) for _ in range(5000)))

# Patched: an encrypted flag, a CRC that does not match, a missing local
# header, an entry pointing into another, a central directory longer
# than the file, an entry starting past the directory.
write("plain", [("one.json", osv_record(1), S), ("two.json", osv_record(2), D), ("three.json", osv_record(3), S)])
locals_, centrals = offsets("plain", LOCAL), offsets("plain", CENTRAL)
end = offsets("plain", b"PK\x05\x06")[0]
patch("plain", "encrypted", [(locals_[1] + 6, b"\x01\x00"), (centrals[1] + 8, b"\x01\x00")])
stored_data = locals_[0] + 30 + len("one.json")
plain = open(path("plain.zip"), "rb").read()
patch("plain", "bad-crc", [(stored_data + 5, bytes([plain[stored_data + 5] ^ 0x20]))])
patch("plain", "no-local-header", [(locals_[1], b"XX\x03\x04")])
patch("plain", "overlapping", [(centrals[2] + 42, struct.pack("<I", locals_[1]))])
patch("plain", "out-of-order", [(centrals[1] + 42, struct.pack("<I", locals_[2])), (centrals[2] + 42, struct.pack("<I", locals_[1]))])
patch("plain", "directory-too-large", [(end + 12, struct.pack("<I", 0x7FFFFFFF))])
patch("plain", "offset-past-directory", [(centrals[2] + 42, struct.pack("<I", end + 1))])
patch("plain", "too-many-entries", [(end + 8, struct.pack("<HH", 60000, 60000))])
patch("plain", "bad-deflate", [(locals_[1] + 30 + len("two.json"), b"\xff\xff\xff\xff")])
patch("plain", "local-name-differs", [(locals_[2] + 30, b"X")])
print("made %d archives" % len([name for name in os.listdir(FOLDER) if name.endswith(".zip")]))
