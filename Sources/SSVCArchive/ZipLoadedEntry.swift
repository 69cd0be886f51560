import CDeflate
import CZlib

/// An entry `ZipArchive.load` admitted: its size bounds, its share of the
/// archive's total and its local header checked, and (nearly always) its
/// compressed bytes read. `contents()` does the rest of `read`: inflating,
/// the size and the CRC-32. It touches nothing shared but the archive's
/// descriptor (with `pread`), so entries are inflated on several threads
/// at once (issue 55); it must not outlive its archive.
public struct ZipLoadedEntry: @unchecked Sendable {
    public let entry: ZipEntry
    let file: ArchiveFile
    /// Where the entry's data begins in the file.
    let start: UInt64
    /// The data, read ahead; nil when it is read from the file as it is inflated.
    let data: [UInt8]?

    /// The most compressed bytes read from the file at a time, for an entry not read ahead.
    static let chunkLength = 64 << 10

    /// The entry's bytes: stored, or inflated in one call by libdeflate
    /// (by zlib when it refuses them, or when they are read from the file),
    /// checked against the declared size and CRC-32 (the errors of
    /// `ZipArchive.read`, from `sizeMismatch` on).
    public func contents() throws(ZipError) -> [UInt8] {
        let bytes: [UInt8]
        if entry.method == .stored {
            // Its two sizes agree (load checked), so the data is the entry.
            bytes = data ?? []
        } else if let data {
            if let whole = Self.inflateWhole(data, declared: Int(entry.uncompressedSize)) {
                bytes = whole
            } else {
                // Refused: zlib, step by step, says why.
                var outcome: Result<[UInt8], ZipError> = .failure(.corruptData(entry: entry.displayName, "zlib cannot start"))
                data.withUnsafeBytes { input in outcome = Result { () throws(ZipError) in try inflate(from: input) } }
                bytes = try outcome.get()
            }
        } else {
            bytes = try inflate(from: nil)
        }
        let crc = ZipArchive.crc32(of: bytes)
        guard crc == entry.crc32 else { throw .badCRC(entry: entry.displayName, expected: entry.crc32, actual: crc) }
        return bytes
    }

    /// The raw deflate `data` inflated by libdeflate in one call, when it
    /// is one stream that uses all of the data and makes exactly `declared`
    /// bytes; nil otherwise (zlib then finds the error and its words).
    static func inflateWhole(_ data: [UInt8], declared: Int) -> [UInt8]? {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var used = 0
        var made = 0
        var result = LIBDEFLATE_BAD_DATA
        // One byte more than declared: a stream that needs it is longer.
        let bytes = [UInt8](unsafeUninitializedCapacity: declared + 1) { output, produced in
            data.withUnsafeBytes { input in
                result = libdeflate_deflate_decompress_ex(decompressor, input.baseAddress, input.count, output.baseAddress, output.count, &used, &made)
            }
            produced = result == LIBDEFLATE_SUCCESS ? made : 0
        }
        guard result == LIBDEFLATE_SUCCESS, used == data.count, made == declared else { return nil }
        return bytes
    }

    /// Inflates the raw deflate data, from `input` (the whole of it, in
    /// memory) or else from the file 64 KiB at a time, into an array of
    /// the declared size plus one byte: a stream that fills that byte is
    /// longer than declared, and is stopped there.
    private func inflate(from input: UnsafeRawBufferPointer?) throws(ZipError) -> [UInt8] {
        var stream = z_stream()
        guard ssvc_inflate_init_raw(&stream) == Z_OK else { throw .corruptData(entry: entry.displayName, "zlib cannot start") }
        defer { inflateEnd(&stream) }
        let chunk = input == nil ? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkLength, alignment: 16) : nil
        defer { chunk?.deallocate() }

        let declared = Int(entry.uncompressedSize)
        var failure: ZipError?
        var position = start
        var remaining = entry.compressedSize
        var consumed = 0
        // zlib counts in 32 bits: at most 1 GiB in or out per call.
        let most = 1 << 30
        let bytes = [UInt8](unsafeUninitializedCapacity: declared + 1) { output, produced in
            produced = 0
            while true {
                if stream.avail_in == 0, remaining > 0 {
                    let length = Int(min(remaining, UInt64(input == nil ? Self.chunkLength : most)))
                    if let input {
                        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self) + consumed)
                        consumed += length
                    } else if let chunk {
                        do throws(ZipError) {
                            guard try file.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<length])) == length else {
                                failure = .corruptData(entry: entry.displayName, "the file ends inside its compressed data")
                                return
                            }
                        } catch {
                            failure = error
                            return
                        }
                        stream.next_in = chunk.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    }
                    position += UInt64(length)
                    remaining -= UInt64(length)
                    stream.avail_in = uInt(length)
                }
                let room = min(output.count - produced, most)
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
}
