extension TOMLReader {
    /// `"..."`: escapes allowed, newlines not. Plain runs between escapes are
    /// copied whole; a string without escapes is one copy.
    mutating func readBasicString() throws(TOMLError) -> String {
        position += 1
        var buffer: [UInt8] = []
        var runStart = position
        while true {
            position = firstOffset(from: position, of: 0x22, 0x5C, 0x0A, 0x0D)
            switch peek {
            case UInt8(ascii: "\""):
                buffer.append(contentsOf: bytes[runStart..<position])
                position += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                buffer.append(contentsOf: bytes[runStart..<position])
                try readEscape(into: &buffer)
                runStart = position
            case 0, UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw failure("unterminated string: expected '\"' before \(found())")
            default:
                position += 1
            }
        }
    }

    /// `'...'`: taken as written, no newlines.
    mutating func readLiteralString() throws(TOMLError) -> String {
        position += 1
        let start = position
        while true {
            position = firstOffset(from: position, of: 0x27, 0x0A, 0x0D, 0x0D)
            switch peek {
            case UInt8(ascii: "'"):
                position += 1
                return String(decoding: bytes[start..<position - 1], as: UTF8.self)
            case 0, UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw failure("unterminated string: expected \"'\" before \(found())")
            default:
                position += 1
            }
        }
    }

    /// `"""..."""` (`quote` `"`: escapes read, and a backslash at a line's
    /// end swallows the whitespace and newlines that follow) or `'''...'''`
    /// (`quote` `'`: taken as written). In both, CRLF is read as LF and a
    /// newline right after the opening quotes is dropped.
    mutating func readMultilineString(quote: UInt8) throws(TOMLError) -> String {
        let open = position
        let basic = quote == UInt8(ascii: "\"")
        position += 3
        skipFirstNewline()
        var buffer: [UInt8] = []
        var runStart = position
        while true {
            position = basic ? firstOffset(from: position, of: 0x22, 0x5C, 0x0D, 0x0D) : firstOffset(from: position, of: 0x27, 0x0D, 0x0D, 0x0D)
            switch peek {
            case quote:
                if let end = try closingQuotes(quote) {
                    buffer.append(contentsOf: bytes[runStart..<end])
                    return String(decoding: buffer, as: UTF8.self)
                }
            case UInt8(ascii: "\\") where basic:
                buffer.append(contentsOf: bytes[runStart..<position])
                var next = position + 1
                while byte(at: next) == UInt8(ascii: " ") || byte(at: next) == UInt8(ascii: "\t") { next += 1 }
                if byte(at: next) == UInt8(ascii: "\n") || byte(at: next) == UInt8(ascii: "\r") {
                    position = next
                    skipWhitespaceAndNewlines()
                } else {
                    try readEscape(into: &buffer)
                }
                runStart = position
            case UInt8(ascii: "\r"):
                buffer.append(contentsOf: bytes[runStart..<position])
                buffer.append(UInt8(ascii: "\n"))
                position += 2
                runStart = position
            case 0:
                let closing = basic ? "'\"\"\"'" : "\"'''\""
                throw failure("unterminated multi-line string: expected \(closing) to close it", at: open)
            default:
                position += 1
            }
        }
    }

    /// At a run of `quote`s in a multi-line string: one or two are content;
    /// three to five close the string, the first ones before the last three
    /// being content. Returns where the content ends when the string closes
    /// (reading moves past the run either way).
    private mutating func closingQuotes(_ quote: UInt8) throws(TOMLError) -> Int? {
        var run = 0
        while byte(at: position + run) == quote { run += 1 }
        let start = position
        position += run
        guard run >= 3 else { return nil }
        guard run <= 5 else {
            throw failure("too many quotes: a multi-line string takes at most two before its closing three", at: start + 5)
        }
        return position - 3
    }

    private mutating func skipFirstNewline() {
        if peek == UInt8(ascii: "\n") {
            position += 1
        } else if peek == UInt8(ascii: "\r") {
            position += 2
        }
    }

    private mutating func skipWhitespaceAndNewlines() {
        while true {
            switch peek {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"): position += 1
            case UInt8(ascii: "\r"): position += 2
            default: return
            }
        }
    }

    /// One escape at `position` (a backslash): `\b \t \n \f \r \" \\`,
    /// `\uXXXX` and `\UXXXXXXXX` naming a Unicode scalar (not a surrogate,
    /// at most U+10FFFF). Appends its UTF-8.
    private mutating func readEscape(into buffer: inout [UInt8]) throws(TOMLError) {
        let start = position
        let letter = byte(at: position + 1)
        let simple: UInt8
        switch letter {
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): simple = letter
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = letter == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for offset in 0..<count {
                guard let digit = hexValue(byte(at: position + 2 + offset)) else {
                    throw failure("invalid escape: \\\(UnicodeScalar(letter)) takes \(count) hexadecimal digits", at: start)
                }
                value = value << 4 | digit
            }
            guard let scalar = Unicode.Scalar(value) else {
                let hex = String(value, radix: 16, uppercase: true)
                throw failure("invalid escape: U+\(hex) is not a Unicode scalar value", at: start)
            }
            UTF8.encode(scalar) { buffer.append($0) }
            position += 2 + count
            return
        default:
            throw failure("invalid escape: a backslash followed by \(found(at: position + 1))", at: start)
        }
        buffer.append(simple)
        position += 2
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
