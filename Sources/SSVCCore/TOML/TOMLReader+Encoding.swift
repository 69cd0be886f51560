extension TOMLReader {
    /// Checks the whole input before any grammar: it must be UTF-8, and TOML
    /// 1.0 allows no control character anywhere (comments and strings
    /// included) but tab, and newlines as LF or CRLF. Past this check the
    /// grammar never meets a stray control byte, and 0 can mark the end.
    func checkEncoding() throws(TOMLError) {
        var index = 0
        let count = bytes.count
        while index < count {
            let first = bytes[index]
            if first >= 0x20 && first < 0x7F || first == 0x0A || first == 0x09 {
                index += 1
                continue
            }
            if first == 0x0D {
                guard index + 1 < count, bytes[index + 1] == 0x0A else {
                    throw failure("a carriage return must be followed by a line feed", at: index)
                }
                index += 2
                continue
            }
            if first < 0x80 {
                throw failure("control character U+00\(hex(first)) is not allowed; in a string write it as an escape", at: index)
            }
            index = try checkSequence(at: index)
        }
    }

    /// Checks one multi-byte UTF-8 sequence and returns the offset after it.
    /// Overlong forms, surrogates and values past U+10FFFF are refused.
    private func checkSequence(at index: Int) throws(TOMLError) -> Int {
        let first = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default:
            throw failure("invalid UTF-8: byte 0x\(hex(first)) cannot start a character", at: index)
        }
        for offset in 1..<length {
            let next = byte(at: index + offset)
            let range = offset == 1 ? low...high : 0x80...0xBF
            guard index + offset < bytes.count, range.contains(next) else {
                // ED A0 to ED BF would be U+D800 to U+DFFF, UTF-16's surrogates.
                if first == 0xED, offset == 1, (0xA0...0xBF).contains(next) {
                    throw failure("invalid UTF-8: bytes 0xED 0x\(hex(next)) encode a UTF-16 surrogate (U+D800 to U+DFFF), which is no character", at: index)
                }
                throw failure("invalid UTF-8: the character starting with byte 0x\(hex(first)) is cut short or malformed", at: index)
            }
        }
        return index + length
    }

    private func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + text : text
    }
}
