extension ZipArchive {
    /// The central directory's entries in order, read a record at a time
    /// through one 64 KiB buffer. Each entry is handed out once the record
    /// after it is read, so that it knows where its bytes must end.
    ///
    /// `next()` returns nil after the last entry; after an error it
    /// returns nil too (the error ends the walk).
    public struct Entries {
        let archive: ZipArchive
        private var cursor: DirectoryCursor
        private var lookahead: DirectoryRecord?
        private var started = false
        private var finished = false

        init(archive: ZipArchive) {
            self.archive = archive
            cursor = DirectoryCursor(file: archive.file, position: archive.directoryOffset, end: archive.directoryOffset + archive.directorySize)
        }

        public mutating func next() throws(ZipError) -> ZipEntry? {
            guard !finished else { return nil }
            do throws(ZipError) {
                return try advance()
            } catch {
                finished = true
                throw error
            }
        }

        private mutating func advance() throws(ZipError) -> ZipEntry? {
            if !started {
                started = true
                if archive.entryCount > 0 { lookahead = try readRecord(0) }
            }
            guard let current = lookahead else {
                finished = true
                guard cursor.position == cursor.end else {
                    throw .badEndRecord("the central directory has \(cursor.end - cursor.position) bytes after its last record")
                }
                return nil
            }
            let following = current.index + 1 < archive.entryCount ? try readRecord(current.index + 1) : nil
            let spanEnd = following?.localHeaderOffset ?? archive.directoryOffset
            let entry = current.entry(spanEnd: spanEnd)
            guard current.localHeaderOffset < archive.directoryOffset else {
                throw .offsetOutOfBounds(entry: entry.displayName, offset: current.localHeaderOffset)
            }
            // The least the entry takes: a local header with no extra field.
            let least = UInt64(ZipArchive.localHeaderLength + current.name.count)
            let (headerEnd, overflow) = current.localHeaderOffset.addingReportingOverflow(least)
            let (dataEnd, overflow2) = headerEnd.addingReportingOverflow(current.compressedSize)
            guard !overflow, !overflow2, dataEnd <= spanEnd else { throw .overlapping(entry: entry.displayName) }
            lookahead = following
            return entry
        }

        private mutating func readRecord(_ index: Int) throws(ZipError) -> DirectoryRecord {
            func take(_ count: Int, _ what: String) throws(ZipError) -> [UInt8] {
                guard let bytes = try cursor.take(count) else {
                    throw .badDirectoryRecord(index: index, "its \(what) runs past the end of the central directory")
                }
                return bytes
            }
            let fixed = try take(DirectoryRecord.fixedLength, "fixed part")
            guard Signature.directoryRecord.matches(fixed, at: 0) else {
                throw .badDirectoryRecord(index: index, "no central directory signature")
            }
            let nameLength = Int(fixed.littleEndian16(28))
            guard nameLength <= archive.limits.maximumNameBytes else {
                throw .badDirectoryRecord(index: index, "a name of \(nameLength) bytes, more than the \(archive.limits.maximumNameBytes) allowed")
            }
            let name = try take(nameLength, "name")
            let extra = try take(Int(fixed.littleEndian16(30)), "extra field")
            _ = try take(Int(fixed.littleEndian16(32)), "comment")

            var uncompressedSize = UInt64(fixed.littleEndian32(24))
            var compressedSize = UInt64(fixed.littleEndian32(20))
            var offset = UInt64(fixed.littleEndian32(42))
            var disk = UInt32(fixed.littleEndian16(34))
            // A field too large for its place holds all ones, and its value
            // is in the ZIP64 extra field, in this order, only those.
            let wide = UInt64(UInt32.max)
            if uncompressedSize == wide || compressedSize == wide || offset == wide || disk == UInt32(UInt16.max) {
                guard var values = Self.zip64Field(in: extra) else {
                    throw .badDirectoryRecord(index: index, "sizes marked as ZIP64 without a ZIP64 extra field")
                }
                func value(_ length: Int) throws(ZipError) -> UInt64 {
                    guard values.count >= length else {
                        throw .badDirectoryRecord(index: index, "a ZIP64 extra field too short for the values marked as ZIP64")
                    }
                    let value = length == 8 ? values.littleEndian64(0) : UInt64(values.littleEndian32(0))
                    values = values.dropFirst(length)
                    return value
                }
                if uncompressedSize == wide { uncompressedSize = try value(8) }
                if compressedSize == wide { compressedSize = try value(8) }
                if offset == wide { offset = try value(8) }
                if disk == UInt32(UInt16.max) { disk = UInt32(try value(4)) }
            }
            guard disk == 0 else { throw .multipleDisks }
            return DirectoryRecord(
                index: index, name: name, method: fixed.littleEndian16(10), flags: fixed.littleEndian16(8),
                crc32: fixed.littleEndian32(16), compressedSize: compressedSize, uncompressedSize: uncompressedSize,
                localHeaderOffset: offset
            )
        }

        /// The data of the ZIP64 extended information field (id 1) in an
        /// extra field, or nil when it has none or its blocks do not fit.
        static func zip64Field(in extra: [UInt8]) -> ArraySlice<UInt8>? {
            var position = 0
            while extra.count - position >= 4 {
                let id = extra.littleEndian16(position)
                let length = Int(extra.littleEndian16(position + 2))
                let start = position + 4
                guard extra.count - start >= length else { return nil }
                if id == 1 { return extra[start..<(start + length)] }
                position = start + length
            }
            return nil
        }
    }

    /// The fixed part of a local header.
    static let localHeaderLength = 30
}

/// A central directory record as read, before the entry after it is known.
struct DirectoryRecord {
    static let fixedLength = 46

    let index: Int
    let name: [UInt8]
    let method: UInt16
    let flags: UInt16
    let crc32: UInt32
    let compressedSize: UInt64
    let uncompressedSize: UInt64
    let localHeaderOffset: UInt64

    func entry(spanEnd: UInt64) -> ZipEntry {
        ZipEntry(
            index: index, name: name, method: ZipEntry.Method(method), flags: flags, crc32: crc32,
            compressedSize: compressedSize, uncompressedSize: uncompressedSize, localHeaderOffset: localHeaderOffset, spanEnd: spanEnd
        )
    }
}

/// Reads the central directory front to back through one buffer of 64 KiB
/// (more only for a single name, extra field or comment longer than that,
/// which are at most 64 KiB each).
struct DirectoryCursor {
    static let bufferLength = 64 << 10

    let file: ArchiveFile
    private(set) var position: UInt64
    let end: UInt64
    private var buffer: [UInt8] = []
    private var bufferStart: UInt64 = 0

    init(file: ArchiveFile, position: UInt64, end: UInt64) {
        self.file = file
        self.position = position
        self.end = end
    }

    /// The next `count` bytes, or nil when the directory ends first.
    mutating func take(_ count: Int) throws(ZipError) -> [UInt8]? {
        guard count > 0 else { return [] }
        guard end - position >= UInt64(count) else { return nil }
        let bufferEnd = bufferStart + UInt64(buffer.count)
        if position < bufferStart || position > bufferEnd || bufferEnd - position < UInt64(count) {
            let length = Int(min(UInt64(max(count, Self.bufferLength)), end - position))
            guard let bytes = try file.bytes(at: position, count: length) else { throw .truncated("the central directory") }
            buffer = bytes
            bufferStart = position
        }
        let start = Int(position - bufferStart)
        position += UInt64(count)
        return Array(buffer[start..<(start + count)])
    }
}
