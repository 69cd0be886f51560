import SSVCCore

/// One entry of an archive's central directory, as the walk hands it out
/// (`ZipArchive.Entries`): its name and what reading it would take.
///
/// The name is kept as the archive's bytes. An entry is never written
/// anywhere, but its name is shown to operators: show `displayName`,
/// whose control characters and non-UTF-8 bytes are escaped.
public struct ZipEntry: Sendable, Equatable {
    /// How the entry's bytes are stored.
    public enum Method: Sendable, Equatable, CustomStringConvertible {
        case stored
        case deflated
        /// Any other method (bzip2 is 12, LZMA 14, Zstandard 93…): not read.
        case other(UInt16)

        init(_ code: UInt16) {
            switch code {
            case 0: self = .stored
            case 8: self = .deflated
            default: self = .other(code)
            }
        }

        public var description: String {
            switch self {
            case .stored: "stored"
            case .deflated: "deflate"
            case let .other(code): "method \(code)"
            }
        }
    }

    /// Why a name could not be used as a relative path inside a folder.
    public enum NameProblem: String, Sendable, Equatable {
        case empty = "an empty name"
        case absolute = "an absolute path"
        case parentComponent = "a '..' component"
        case nul = "a NUL byte"
        case backslash = "a backslash"
    }

    /// Its position in the central directory, from 0.
    public let index: Int
    /// The name as the archive has it (no encoding assumed).
    public let name: [UInt8]
    public let method: Method
    /// The general purpose flags (bit 0: encrypted; bit 3: sizes in a
    /// data descriptor; bit 11: UTF-8 name).
    public let flags: UInt16
    public let crc32: UInt32
    public let compressedSize: UInt64
    public let uncompressedSize: UInt64
    /// Where its local header is.
    public let localHeaderOffset: UInt64
    /// Where the next entry's local header (or, for the last, the central
    /// directory) begins: its bytes must end by then.
    let spanEnd: UInt64

    /// The name as text safe to show: UTF-8 with control characters
    /// escaped, other bytes as `\xNN`, cut at 512 characters.
    public var displayName: String { Self.display(name) }

    /// The name as text, not escaped (bytes that are not UTF-8 as U+FFFD):
    /// for what is escaped once where it is shown, as a skipped record's
    /// name is (escaping it here too showed `C:\\\\evil.json`, issue 51).
    public var textName: String { String(decoding: name, as: UTF8.self) }

    /// Encrypted (traditional PKWARE or strong encryption): never read.
    public var isEncrypted: Bool { flags & 0x0001 != 0 || flags & 0x0040 != 0 }

    /// A folder entry (its name ends in `/`).
    public var isDirectory: Bool { name.last == UInt8(ascii: "/") }

    /// Why the name is unsafe as a path, nil when it is a plain relative
    /// path: empty, absolute (`/…` or a drive letter `C:`), with a `..`
    /// component, a NUL byte or a backslash (a separator on Windows).
    public var nameProblem: NameProblem? {
        if name.isEmpty { return .empty }
        if name.contains(0) { return .nul }
        if name.contains(UInt8(ascii: "\\")) { return .backslash }
        if name.first == UInt8(ascii: "/") { return .absolute }
        if name.count >= 2, name[1] == UInt8(ascii: ":"), (name[0] | 0x20) >= UInt8(ascii: "a"), (name[0] | 0x20) <= UInt8(ascii: "z") {
            return .absolute
        }
        if name.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: { $0.elementsEqual("..".utf8) }) {
            return .parentComponent
        }
        return nil
    }

    static func display(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return DisplayText.escaped(text) }
        // Not UTF-8: printable ASCII as it is, every other byte as `\xNN`.
        var text = ""
        for (count, byte) in bytes.enumerated() {
            guard count < DisplayText.maximumShownCharacters else {
                text += "..."
                break
            }
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return text
    }
}
