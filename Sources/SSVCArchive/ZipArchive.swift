@preconcurrency import Glibc

/// A zip archive (PKWARE's APPNOTE.TXT) read from a file in bounded memory:
/// the central directory is walked record by record (`entries()`), and
/// each entry the caller wants is read whole (`read(_:)`), stored or
/// inflated with zlib, checked against its declared size and CRC-32.
///
/// The archive is not trusted. Every offset and size is checked before it
/// is used (in 64-bit arithmetic that reports overflow), entries must lie
/// one after the other in file order without overlapping, and what an
/// entry may inflate to is bounded by `ZipBounds`: per entry, per archive,
/// and as a ratio to its compressed size. Any violation is a `ZipError`,
/// never a trap.
///
/// Not read: archives split over disks, encryption, methods other than
/// stored and deflate, and archives whose central directory lists entries
/// out of file order (no writer in use makes them; allowing them would
/// take memory per entry to rule out overlaps).
public final class ZipArchive {
    public let limits: ZipBounds
    /// How many entries the central directory lists.
    public let entryCount: Int
    /// The archive's size in bytes.
    public var fileSize: UInt64 { file.size }
    /// Bytes `read(_:)` has inflated from this archive so far (counted as
    /// declared, before inflating), against `limits.maximumTotalBytes`.
    public internal(set) var inflatedBytes: UInt64 = 0

    let file: ArchiveFile
    let directoryOffset: UInt64
    let directorySize: UInt64
    private let ownsDescriptor: Bool

    /// Opens the archive at `path` (a regular file; opened without
    /// blocking, closed with the archive) and reads its end records.
    public convenience init(path: String, limits: ZipBounds = ZipBounds()) throws(ZipError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw .system("cannot open the archive", code: errno) }
        do throws(ZipError) {
            try self.init(descriptor: descriptor, owning: true, limits: limits)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Reads the archive open on `descriptor`, which stays the caller's
    /// to close (after the archive is released).
    public convenience init(fileDescriptor: CInt, limits: ZipBounds = ZipBounds()) throws(ZipError) {
        try self.init(descriptor: fileDescriptor, owning: false, limits: limits)
    }

    private init(descriptor: CInt, owning: Bool, limits: ZipBounds) throws(ZipError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system("cannot read the archive", code: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        let file = ArchiveFile(descriptor: descriptor, size: UInt64(max(0, info.st_size)))
        let directory = try Self.locateDirectory(file, limits: limits)
        self.file = file
        self.limits = limits
        entryCount = directory.count
        directoryOffset = directory.offset
        directorySize = directory.size
        ownsDescriptor = owning
    }

    deinit {
        if ownsDescriptor { close(file.descriptor) }
    }

    /// The end of central directory record's fixed part, and the most a
    /// comment after it can add.
    static let endRecordLength = 22
    static let maximumCommentLength = 0xFFFF

    /// Finds the central directory through the end of central directory
    /// record (searched in the last 65,557 bytes, the record with the
    /// longest comment) and, when its locator precedes that record, the
    /// ZIP64 end of central directory record.
    static func locateDirectory(_ file: ArchiveFile, limits: ZipBounds) throws(ZipError) -> (offset: UInt64, size: UInt64, count: Int) {
        // What the file begins with tells a cut archive from something else.
        let head = try file.bytes(at: 0, count: 4) ?? []
        let looksLikeZip = head.elementsEqual(Signature.localHeader.bytes) || head.elementsEqual(Signature.endRecord.bytes)
        let cutOrNot: ZipError = looksLikeZip ? .truncated("the end of central directory record") : .notZip

        let tailLength = Int(min(file.size, UInt64(endRecordLength + maximumCommentLength)))
        guard tailLength >= endRecordLength, let tail = try file.bytes(at: file.size - UInt64(tailLength), count: tailLength) else {
            throw cutOrNot
        }
        // The last record whose comment ends exactly at the end of the file.
        var found: Int?
        var candidate = tailLength - endRecordLength
        while candidate >= 0 {
            if Signature.endRecord.matches(tail, at: candidate),
               candidate + endRecordLength + Int(tail.littleEndian16(candidate + 20)) == tailLength {
                found = candidate
                break
            }
            candidate -= 1
        }
        guard let found else {
            // A record whose comment runs past the end: the archive was cut.
            if (0...(tailLength - endRecordLength)).contains(where: { Signature.endRecord.matches(tail, at: $0) }) {
                throw .truncated("the archive comment")
            }
            throw cutOrNot
        }
        let record = tail[found..<(found + endRecordLength)]
        let recordOffset = file.size - UInt64(tailLength) + UInt64(found)

        var disk = UInt32(record.littleEndian16(4))
        var directoryDisk = UInt32(record.littleEndian16(6))
        var entriesHere = UInt64(record.littleEndian16(8))
        var entries = UInt64(record.littleEndian16(10))
        var size = UInt64(record.littleEndian32(12))
        var offset = UInt64(record.littleEndian32(16))
        var directoryEnd = recordOffset

        let locatorLength = 20
        if recordOffset >= UInt64(locatorLength),
           let locator = try file.bytes(at: recordOffset - UInt64(locatorLength), count: locatorLength),
           Signature.zip64Locator.matches(locator, at: 0) {
            guard locator.littleEndian32(4) == 0, locator.littleEndian32(16) <= 1 else { throw .multipleDisks }
            let zip64Offset = locator.littleEndian64(8)
            let zip64Length = 56
            let locatorOffset = recordOffset - UInt64(locatorLength)
            guard zip64Offset <= locatorOffset, locatorOffset - zip64Offset >= UInt64(zip64Length) else {
                throw .badEndRecord("the ZIP64 end record's offset \(zip64Offset) leaves no room for it before its locator")
            }
            guard let zip64 = try file.bytes(at: zip64Offset, count: zip64Length) else { throw .truncated("the ZIP64 end record") }
            guard Signature.zip64EndRecord.matches(zip64, at: 0) else {
                throw .badEndRecord("no ZIP64 end record at offset \(zip64Offset), where its locator points")
            }
            disk = zip64.littleEndian32(16)
            directoryDisk = zip64.littleEndian32(20)
            entriesHere = zip64.littleEndian64(24)
            entries = zip64.littleEndian64(32)
            size = zip64.littleEndian64(40)
            offset = zip64.littleEndian64(48)
            directoryEnd = zip64Offset
        }
        guard disk == 0, directoryDisk == 0, entriesHere == entries else { throw .multipleDisks }

        let (directoryStop, overflow) = offset.addingReportingOverflow(size)
        guard !overflow, directoryStop <= directoryEnd else {
            throw .directoryOutOfBounds(offset: offset, size: size, end: directoryEnd)
        }
        guard entries <= UInt64(max(0, limits.maximumEntries)) else {
            throw .tooManyEntries(entries > UInt64(Int.max) ? Int.max : Int(entries), limit: limits.maximumEntries)
        }
        // Each record takes at least its fixed 46 bytes.
        let (least, tooMany) = entries.multipliedReportingOverflow(by: UInt64(DirectoryRecord.fixedLength))
        guard !tooMany, least <= size else {
            throw .badEndRecord("\(entries) entries cannot fit in a central directory of \(size) bytes")
        }
        return (offset, size, Int(entries))
    }

    /// Walks the central directory from its first record.
    public func entries() -> Entries {
        Entries(archive: self)
    }
}

/// The four bytes that begin each zip structure.
enum Signature: UInt32 {
    case localHeader = 0x0403_4B50
    case directoryRecord = 0x0201_4B50
    case endRecord = 0x0605_4B50
    case zip64EndRecord = 0x0606_4B50
    case zip64Locator = 0x0706_4B50

    var bytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) } }

    func matches<Bytes: Collection<UInt8>>(_ bytes: Bytes, at offset: Int) -> Bool where Bytes.Index == Int {
        offset >= 0 && bytes.count - offset >= 4 && bytes.littleEndian32(offset) == rawValue
    }
}
