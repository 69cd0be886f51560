import CDeflate

extension ZipArchive {
    /// The entry's bytes, whole, after these checks in this order:
    ///
    /// | refused when                                                  | error                |
    /// |---------------------------------------------------------------|----------------------|
    /// | encrypted                                                     | `encrypted`          |
    /// | neither stored nor deflate                                    | `unsupportedMethod`  |
    /// | declared larger than `maximumEntryBytes`                      | `entryTooLarge`      |
    /// | the archive's total would pass `maximumTotalBytes`            | `archiveTooLarge`    |
    /// | over `ratioFreeBytes` and over `maximumRatio` × compressed    | `compressionRatio`   |
    /// | a stored entry whose two sizes differ                         | `sizeMismatch`       |
    /// | no local header, or one naming another entry or method        | `badLocalHeader`     |
    /// | its bytes reach past the next entry's start                   | `overlapping`        |
    /// | deflate data zlib refuses, or that ends early or late         | `corruptData`        |
    /// | more or fewer bytes than declared                             | `sizeMismatch`       |
    /// | a CRC-32 other than declared                                  | `badCRC`             |
    ///
    /// Nothing is inflated before the size checks, and inflating stops at
    /// the declared size, so no entry takes more memory than it declared
    /// (and its compressed bytes, at most an eighth more, held while it is
    /// inflated), and the ratio bound holds for what is inflated, not only
    /// for what is declared.
    public func read(_ entry: ZipEntry) throws(ZipError) -> [UInt8] {
        try load(entry).contents()
    }

    /// The checks of `read` up to the entry's data (the size bounds, its
    /// share of the archive's total counted, its local header), and its
    /// compressed bytes read ahead when they are no more than deflate
    /// makes of its size: `contents()` then inflates and checks the rest,
    /// on any thread, while the archive is open.
    public func load(_ entry: ZipEntry) throws(ZipError) -> ZipLoadedEntry {
        guard !entry.isEncrypted else { throw .encrypted(entry: entry.displayName) }
        guard entry.method == .stored || entry.method == .deflated else {
            throw .unsupportedMethod(entry: entry.displayName, entry.method)
        }
        let declared = entry.uncompressedSize
        // (Below Int.max too: the buffer takes one byte more than declared.)
        guard declared <= UInt64(max(0, limits.maximumEntryBytes)), declared < UInt64(Int.max) else {
            throw .entryTooLarge(entry: entry.displayName, size: declared, limit: limits.maximumEntryBytes)
        }
        let (total, overflow) = inflatedBytes.addingReportingOverflow(declared)
        guard !overflow, total <= UInt64(max(0, limits.maximumTotalBytes)) else { throw .archiveTooLarge(limit: limits.maximumTotalBytes) }
        if declared > UInt64(max(0, limits.ratioFreeBytes)) {
            let (bound, overflow) = entry.compressedSize.multipliedReportingOverflow(by: UInt64(max(0, limits.maximumRatio)))
            guard overflow || declared <= bound else {
                throw .compressionRatio(
                    entry: entry.displayName, compressed: entry.compressedSize, uncompressed: declared, limit: limits.maximumRatio
                )
            }
        }
        if entry.method == .stored, entry.compressedSize != declared {
            throw .sizeMismatch(entry: entry.displayName, declared: declared, actual: "stores \(entry.compressedSize)")
        }
        let dataStart = try checkLocalHeader(entry)
        inflatedBytes = total
        // Stored blocks cost 5 bytes per 65,535: anything larger is padding
        // no encoder writes, inflated from the file instead of held.
        let readAhead = entry.method == .stored || entry.compressedSize <= declared + declared / 8 + 4_096
        var data: [UInt8]?
        if readAhead {
            guard let bytes = try file.bytes(at: dataStart, count: Int(entry.compressedSize)) else {
                throw entry.method == .stored
                    ? .sizeMismatch(entry: entry.displayName, declared: declared, actual: "the file ends first")
                    : .corruptData(entry: entry.displayName, "the file ends inside its compressed data")
            }
            data = bytes
        }
        return ZipLoadedEntry(entry: entry, file: file, start: dataStart, data: data)
    }

    /// Checks the entry's local header against its directory record and
    /// returns where its data begins.
    private func checkLocalHeader(_ entry: ZipEntry) throws(ZipError) -> UInt64 {
        let offset = entry.localHeaderOffset
        guard let header = try file.bytes(at: offset, count: Self.localHeaderLength) else {
            throw .badLocalHeader(entry: entry.displayName, "the file ends inside its local header")
        }
        guard Signature.localHeader.matches(header, at: 0) else {
            throw .badLocalHeader(entry: entry.displayName, "no local header at offset \(offset)")
        }
        guard ZipEntry.Method(header.littleEndian16(8)) == entry.method else {
            throw .badLocalHeader(entry: entry.displayName, "its local header names another compression method")
        }
        let nameLength = Int(header.littleEndian16(26))
        let extraLength = UInt64(header.littleEndian16(28))
        let nameOffset = offset + UInt64(Self.localHeaderLength)  // below the directory, so no overflow
        guard let name = try file.bytes(at: nameOffset, count: nameLength), name == entry.name else {
            throw .badLocalHeader(entry: entry.displayName, "its local header names another entry")
        }
        let dataStart = nameOffset + UInt64(nameLength) + extraLength
        let (dataEnd, overflow) = dataStart.addingReportingOverflow(entry.compressedSize)
        guard !overflow, dataEnd <= entry.spanEnd else { throw .overlapping(entry: entry.displayName) }
        return dataStart
    }

    /// The CRC-32 of `bytes` (libdeflate's, folded with the CPU's
    /// carry-less multiply where there is one).
    static func crc32(of bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }
}
