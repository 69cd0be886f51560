extension TOMLReader {
    /// A key as read: its dotted parts, and where each starts for messages.
    struct Key {
        var parts: [String] = []
        var offsets: [Int] = []

        /// The key up to part `index`, shown for a message.
        func shown(through index: Int) -> String {
            "'" + TOMLText.displayed(parts[...index]) + "'"
        }
    }

    /// Reads a key: simple keys joined by dots, blanks allowed around each dot.
    /// Stops after the blanks following the last part.
    mutating func readKey() throws(TOMLError) -> Key {
        var key = Key()
        while true {
            key.offsets.append(position)
            key.parts.append(try readSimpleKey())
            skipBlanks()
            guard peek == UInt8(ascii: ".") else { return key }
            position += 1
            skipBlanks()
        }
    }

    /// A bare key (`A-Za-z0-9_-`), or a basic or literal string on one line.
    private mutating func readSimpleKey() throws(TOMLError) -> String {
        let start = position
        switch peek {
        case UInt8(ascii: "\""):
            guard !(byte(at: start + 1) == UInt8(ascii: "\"") && byte(at: start + 2) == UInt8(ascii: "\"")) else {
                throw failure("a key cannot be a multi-line string")
            }
            return try readBasicString()
        case UInt8(ascii: "'"):
            guard !(byte(at: start + 1) == UInt8(ascii: "'") && byte(at: start + 2) == UInt8(ascii: "'")) else {
                throw failure("a key cannot be a multi-line string")
            }
            return try readLiteralString()
        default:
            while position < bytes.count, TOMLText.isBareKeyByte(bytes[position]) {
                position += 1
            }
            guard position > start else {
                throw failure("expected a key, found \(found())")
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
    }
}
