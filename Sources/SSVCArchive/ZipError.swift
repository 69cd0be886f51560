@preconcurrency import Glibc

/// Why an archive, or one entry of it, could not be read. Entry names in
/// the cases are `ZipEntry.displayName`s, safe to show.
public enum ZipError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read (`errno`).
    case system(String, code: Int32)
    case notRegularFile
    /// No end of central directory record in the last 65,557 bytes.
    case notZip
    /// An end of central directory record (or its ZIP64 form) that
    /// contradicts itself: `reason` says how.
    case badEndRecord(String)
    /// The file ends before a structure it announces: `what` names it.
    case truncated(String)
    /// Parts on several disks (split archives) are not read.
    case multipleDisks
    /// The central directory does not fit between its offset and the end
    /// of the archive.
    case directoryOutOfBounds(offset: UInt64, size: UInt64, end: UInt64)
    case tooManyEntries(Int, limit: Int)
    /// A central directory record that cannot be read: `reason` says why.
    case badDirectoryRecord(index: Int, String)
    /// An entry whose local header lies outside the archive's entries.
    case offsetOutOfBounds(entry: String, offset: UInt64)
    /// An entry whose bytes reach into the next one (or into the central
    /// directory); entries out of file order are reported so too.
    case overlapping(entry: String)
    /// A local header that is missing or disagrees with the central directory.
    case badLocalHeader(entry: String, String)
    case encrypted(entry: String)
    case unsupportedMethod(entry: String, ZipEntry.Method)
    case entryTooLarge(entry: String, size: UInt64, limit: Int)
    case archiveTooLarge(limit: Int)
    case compressionRatio(entry: String, compressed: UInt64, uncompressed: UInt64, limit: Int)
    /// The bytes read or inflated are not the size the directory declares.
    case sizeMismatch(entry: String, declared: UInt64, actual: String)
    /// Deflate data zlib could not inflate.
    case corruptData(entry: String, String)
    case badCRC(entry: String, expected: UInt32, actual: UInt32)

    /// Whether the error is about one entry only, so that the walk can go
    /// on to the next one; otherwise the archive as a whole is unreadable
    /// (or, for `archiveTooLarge`, no more may be read from it).
    public var concernsOneEntry: Bool {
        switch self {
        case .badLocalHeader, .encrypted, .unsupportedMethod, .entryTooLarge, .compressionRatio, .sizeMismatch, .corruptData, .badCRC: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case let .system(what, code): "\(what): \(Self.message(code))"
        case .notRegularFile: "not a regular file"
        case .notZip: "not a zip archive (no end of central directory record)"
        case let .badEndRecord(reason): "the end of central directory record is wrong: \(reason)"
        case let .truncated(what): "the archive is cut short: it ends inside \(what)"
        case .multipleDisks: "the archive is split over several disks, which is not read"
        case let .directoryOutOfBounds(offset, size, end):
            "the central directory (\(size) bytes at offset \(offset)) does not fit in the archive's first \(end) bytes"
        case let .tooManyEntries(count, limit): "the archive lists \(count) entries, more than the \(limit) allowed"
        case let .badDirectoryRecord(index, reason): "central directory record \(index): \(reason)"
        case let .offsetOutOfBounds(entry, offset): "entry '\(entry)' starts at offset \(offset), outside the archive's entries"
        case let .overlapping(entry): "entry '\(entry)' reaches into the next entry or the central directory (entries overlap or are out of order)"
        case let .badLocalHeader(entry, reason): "entry '\(entry)': \(reason)"
        case let .encrypted(entry): "entry '\(entry)' is encrypted"
        case let .unsupportedMethod(entry, method): "entry '\(entry)' is compressed with \(method), which is not read (only stored and deflate)"
        case let .entryTooLarge(entry, size, limit): "entry '\(entry)' inflates to \(size) bytes, more than the \(limit) allowed for one entry"
        case let .archiveTooLarge(limit): "the archive's entries inflate to more than the \(limit) bytes allowed for one archive"
        case let .compressionRatio(entry, compressed, uncompressed, limit):
            "entry '\(entry)' inflates \(compressed) bytes to \(uncompressed), more than \(limit) times: a zip bomb"
        case let .sizeMismatch(entry, declared, actual): "entry '\(entry)' declares \(declared) bytes but \(actual)"
        case let .corruptData(entry, reason): "entry '\(entry)' cannot be inflated: \(reason)"
        case let .badCRC(entry, expected, actual):
            "entry '\(entry)' has CRC-32 \(Self.hex(actual)), not the \(Self.hex(expected)) its directory record declares"
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
