import CZlib

extension ZipArchive {
    /// The most compressed bytes read, and inflated in one call, at a time.
    static let chunkLength = 64 << 10

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
    /// the declared size, so no entry takes more memory than it declared,
    /// and the ratio bound holds for what is inflated, not only for what
    /// is declared.
    public func read(_ entry: ZipEntry) throws(ZipError) -> [UInt8] {
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

        let bytes = entry.method == .stored ? try readStored(entry, at: dataStart) : try inflate(entry, at: dataStart)
        let crc = Self.crc32(of: bytes)
        guard crc == entry.crc32 else { throw .badCRC(entry: entry.displayName, expected: entry.crc32, actual: crc) }
        return bytes
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

    private func readStored(_ entry: ZipEntry, at start: UInt64) throws(ZipError) -> [UInt8] {
        let count = Int(entry.uncompressedSize)
        guard let bytes = try file.bytes(at: start, count: count) else {
            throw .sizeMismatch(entry: entry.displayName, declared: entry.uncompressedSize, actual: "the file ends first")
        }
        return bytes
    }

    /// Inflates the entry's raw deflate data, reading it 64 KiB at a time,
    /// into an array of the declared size plus one byte: a stream that
    /// fills that byte is longer than declared, and is stopped there.
    private func inflate(_ entry: ZipEntry, at start: UInt64) throws(ZipError) -> [UInt8] {
        var stream = z_stream()
        guard ssvc_inflate_init_raw(&stream) == Z_OK else { throw .corruptData(entry: entry.displayName, "zlib cannot start") }
        defer { inflateEnd(&stream) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkLength, alignment: 16)
        defer { input.deallocate() }

        let declared = Int(entry.uncompressedSize)
        var failure: ZipError?
        var position = start
        var remaining = entry.compressedSize
        let bytes = [UInt8](unsafeUninitializedCapacity: declared + 1) { output, produced in
            produced = 0
            while true {
                if stream.avail_in == 0, remaining > 0 {
                    let length = Int(min(remaining, UInt64(Self.chunkLength)))
                    do throws(ZipError) {
                        guard try file.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: input[0..<length])) == length else {
                            failure = .corruptData(entry: entry.displayName, "the file ends inside its compressed data")
                            return
                        }
                    } catch {
                        failure = error
                        return
                    }
                    position += UInt64(length)
                    remaining -= UInt64(length)
                    stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_in = uInt(length)
                }
                let room = min(output.count - produced, Self.chunkLength)
                stream.next_out = output.baseAddress! + produced
                stream.avail_out = uInt(room)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced += room - Int(stream.avail_out)
                if produced > declared {
                    failure = .sizeMismatch(entry: entry.displayName, declared: entry.uncompressedSize, actual: "inflates to more")
                    return
                }
                switch status {
                case Z_STREAM_END:
                    if remaining > 0 || stream.avail_in > 0 {
                        failure = .corruptData(entry: entry.displayName, "the deflate stream ends before its compressed data does")
                    }
                    return
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0 && remaining == 0:
                    failure = .corruptData(entry: entry.displayName, "the compressed data ends inside the deflate stream")
                    return
                case Z_BUF_ERROR:
                    continue
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    failure = .corruptData(entry: entry.displayName, reason)
                    return
                }
            }
        }
        if let failure { throw failure }
        guard bytes.count == declared else {
            throw .sizeMismatch(entry: entry.displayName, declared: entry.uncompressedSize, actual: "inflates to \(bytes.count)")
        }
        return bytes
    }

    /// zlib's CRC-32 of `bytes`, fed at most 1 GiB at a time (its length
    /// argument is 32 bits).
    static func crc32(of bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc = CZlib.crc32(0, nil, 0)
            var offset = 0
            while offset < buffer.count {
                let length = min(buffer.count - offset, 1 << 30)
                crc = CZlib.crc32(crc, buffer.baseAddress! + offset, uInt(length))
                offset += length
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }
}
