/// The state of one document being read: the bytes, where reading has got
/// to, and the tables built so far. `TOMLParser` is its public face; the
/// grammar is spread over the extensions by concern.
///
/// The bytes are a buffer pointer that lives only while `TOMLParser.parse`
/// runs: indexing one is many times cheaper than indexing an array in a
/// debug build. Every index is checked against `bytes.count` before use
/// (`peek`, `byte(at:)`, and the loops' own bounds), and `position` never
/// passes the end.
struct TOMLReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    let maxDepth: Int
    let root: TOMLTableBuilder
    /// The table that key/value lines go to: the last header's.
    var current: TOMLTableBuilder
    /// Where the content starts: 3 after a byte order mark.
    let contentStart: Int

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        root = TOMLTableBuilder(origin: .header, depth: 0)
        current = root
        contentStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// The byte at `position`, or 0 at the end. No 0 byte is left in the
    /// input once `checkEncoding()` has passed, so 0 always means the end.
    var peek: UInt8 {
        position < bytes.count ? bytes[position] : 0
    }

    func byte(at offset: Int) -> UInt8 {
        offset >= 0 && offset < bytes.count ? bytes[offset] : 0
    }

    var atEnd: Bool { position >= bytes.count }

    mutating func readDocument() throws(TOMLError) -> ConfigTable {
        try checkEncoding()
        position = contentStart
        while true {
            skipBlanks()
            switch peek {
            case 0:
                return root.finish()
            case UInt8(ascii: "\n"):
                position += 1
            case UInt8(ascii: "\r"):
                position += 2
            case UInt8(ascii: "#"):
                skipComment()
            case UInt8(ascii: "["):
                try readHeader()
                try expectLineEnd(after: "a table header")
            default:
                try readKeyValue()
                try expectLineEnd(after: "a value")
            }
        }
    }

    /// Skips spaces and tabs, TOML's whitespace within a line.
    mutating func skipBlanks() {
        while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t") {
            position += 1
        }
    }

    /// Skips a comment up to its line's end; its characters were checked with the rest.
    mutating func skipComment() {
        position = firstOffset(from: position, of: 0x0A, 0x0D, 0x0A, 0x0D)
    }

    /// The first offset at or after `start` holding one of the four bytes
    /// given (repeat one when fewer are wanted), or the end. Long runs
    /// (strings, comments) are crossed here in one tight loop.
    func firstOffset(from start: Int, of a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Int {
        var offset = start
        let count = bytes.count
        while offset < count {
            let byte = bytes[offset]
            if byte == a || byte == b || byte == c || byte == d { return offset }
            offset += 1
        }
        return count
    }

    /// After a header or a key/value pair only blanks and a comment may
    /// follow before the line ends.
    mutating func expectLineEnd(after what: String) throws(TOMLError) {
        skipBlanks()
        if peek == UInt8(ascii: "#") { skipComment() }
        switch peek {
        case 0, UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            return
        default:
            throw failure("expected a newline after \(what), found \(found())")
        }
    }

    /// Whatever is at `offset`, named for a message: never the raw
    /// character when it is a control or could reorder the text.
    func found(at offset: Int? = nil) -> String {
        let offset = offset ?? position
        guard offset < bytes.count else { return "the end of the input" }
        let first = bytes[offset]
        switch first {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            return "a newline"
        case UInt8(ascii: "\t"):
            return "a tab"
        case UInt8(ascii: " "):
            return "a space"
        case UInt8(ascii: "'"):
            return "\"'\""
        case 0x20..<0x7F:
            return "'" + String(UnicodeScalar(first)) + "'"
        default:
            var end = offset + 1
            while end < bytes.count, end < offset + 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
            let text = String(decoding: bytes[offset..<end], as: UTF8.self)
            // Named by code point too: a no-break space looks like a space.
            let codes = text.unicodeScalars.map { scalar in
                let hex = String(scalar.value, radix: 16, uppercase: true)
                return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
            return "'" + text.unicodeScalars.map(TOMLText.displayed).joined() + "' (" + codes.joined(separator: " ") + ")"
        }
    }

    /// An error at `offset` (by default where reading has got to), with its
    /// line and column worked out now: only a refused document pays for it.
    func failure(_ message: String, at offset: Int? = nil) -> TOMLError {
        let offset = min(max(offset ?? position, 0), bytes.count)
        var line = 1
        var lineStart = contentStart
        var index = 0
        while index < offset {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        var column = 1
        index = lineStart
        while index < offset {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return TOMLError(line: line, column: column, message: message)
    }
}
