@preconcurrency import Glibc

/// A two-record OSV export of one package, written as a zip of stored
/// entries: what a daemon reads before it is given a large export, so that
/// its idle memory before has met every part of the reader once. The first
/// record affects version 1.0 (fixed in 1.1), the second only 2.0 and later.
enum SmallExport {
    /// `ecosystem` and `package` go into JSON as they are: no `"`, `\` or control characters.
    static func write(to path: String, ecosystem: String, package: String) throws(BenchError) {
        let records = [("0", "1.1", ["1.0"]), ("2.0", "3.0", ["2.0"])].enumerated().map { index, range in
            let versions = range.2.map { "\"\($0)\"" }.joined(separator: ", ")
            return (
                name: "BENCH-\(index + 1).json",
                bytes: Array("""
                    {"schema_version": "1.7.0", "id": "BENCH-\(index + 1)", "modified": "2026-11-26T00:00:00Z", \
                    "summary": "ssvc-bench's advisory \(index + 1)", \
                    "affected": [{"package": {"ecosystem": "\(ecosystem)", "name": "\(package)"}, \
                    "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "\(range.0)"}, {"fixed": "\(range.1)"}]}], \
                    "versions": [\(versions)]}]}
                    """.utf8)
            )
        }
        var archive: [UInt8] = []
        var directory: [UInt8] = []
        for record in records {
            let name = Array(record.name.utf8)
            let crc = crc32(record.bytes)
            let offset = archive.count
            // Local header: version 2.0, no flags, stored, 1980-01-01 00:00; then the central directory's.
            let common: [[UInt8]] = [le16(0), le16(0), le16(0), le16(0x21), le32(crc), le32(record.bytes.count), le32(record.bytes.count), le16(name.count)]
            archive += ([le32(0x0403_4B50), le16(20)] + common + [le16(0), name, record.bytes]).joined()
            directory += ([le32(0x0201_4B50), le16(20), le16(20)] + common + [le16(0), le16(0), le16(0), le16(0), le32(0), le32(offset), name]).joined()
        }
        let end: [[UInt8]] = [
            le32(0x0605_4B50), le16(0), le16(0), le16(records.count), le16(records.count), le32(directory.count), le32(archive.count), le16(0),
        ]
        let bytes = archive + directory + Array(end.joined())
        guard let file = fopen(path, "wx") else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = fwrite(bytes, 1, bytes.count, file)
        guard fclose(file) == 0, written == bytes.count else { throw BenchError("cannot write \(path)") }
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le32<T: BinaryInteger>(_ value: T) -> [UInt8] {
        let value = UInt32(truncatingIfNeeded: value)
        return (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// CRC-32 as zip has it (polynomial 0xEDB88320), bit by bit: the records are small.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? crc >> 1 ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
