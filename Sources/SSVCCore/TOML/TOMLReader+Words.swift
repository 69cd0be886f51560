extension TOMLReader {
    /// Bytes that may make up a boolean, number, date or time.
    func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default:
            false
        }
    }

    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// A boolean, number, date or time: the run of word bytes at `position`
    /// (a date and a time may be joined by one space), then its kind from its shape.
    mutating func readWord() throws(TOMLError) -> ConfigValue {
        let start = position
        skipWordBytes()
        if position - start == 10, isFullDate(start), peek == UInt8(ascii: " "), isDigit(byte(at: position + 1)) {
            position += 1
            skipWordBytes()
        }
        let word = start..<position
        let first = bytes[start]
        let sign = first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
        guard isDigit(sign ? byte(at: start + 1) : first) else {
            switch String(decoding: bytes[word], as: UTF8.self) {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "inf", "+inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            case "nan", "+nan": return .double(.nan)
            case "-nan": return .double(-.nan)
            case _ where sign: throw failure("invalid number \(shown(word))", at: start)
            default: throw failure("expected a value, found \(shown(word))", at: start)
            }
        }
        var colon = false
        var floatMark = false
        var index = start
        while index < word.upperBound {
            switch bytes[index] {
            case UInt8(ascii: ":"): colon = true
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): floatMark = true
            default: break
            }
            index += 1
        }
        let yearDash = byte(at: start + 4) == UInt8(ascii: "-") && isDigit(byte(at: start + 1))
            && isDigit(byte(at: start + 2)) && isDigit(byte(at: start + 3))
        if colon || !sign && yearDash {
            return try readDateTime(word)
        }
        if floatMark, !(first == UInt8(ascii: "0") && byte(at: start + 1) == UInt8(ascii: "x")) {
            return .double(try readFloat(word))
        }
        return .int(try readInteger(word))
    }

    /// A word as shown in a message: at most 40 characters (words hold only
    /// printable ASCII and a space).
    func shown(_ word: Range<Int>) -> String {
        let text = String(decoding: bytes[word.lowerBound..<min(word.upperBound, word.lowerBound + 40)], as: UTF8.self)
        return "'" + text + (word.count > 40 ? "…'" : "'")
    }

    private mutating func skipWordBytes() {
        while position < bytes.count, isWordByte(bytes[position]) {
            position += 1
        }
    }

    /// Whether `YYYY-MM-DD` starts at `offset`.
    func isFullDate(_ offset: Int) -> Bool {
        isDigit(byte(at: offset)) && isDigit(byte(at: offset + 1)) && isDigit(byte(at: offset + 2))
            && isDigit(byte(at: offset + 3)) && byte(at: offset + 4) == UInt8(ascii: "-")
            && isDigit(byte(at: offset + 5)) && isDigit(byte(at: offset + 6)) && byte(at: offset + 7) == UInt8(ascii: "-")
            && isDigit(byte(at: offset + 8)) && isDigit(byte(at: offset + 9))
    }

    /// Decimal with an optional sign, or `0x`, `0o`, `0b` without one;
    /// underscores only between digits; no leading zeros; within Int64.
    private func readInteger(_ word: Range<Int>) throws(TOMLError) -> Int {
        var index = word.lowerBound
        let sign = bytes[index]
        let negative = sign == UInt8(ascii: "-")
        if negative || sign == UInt8(ascii: "+") { index += 1 }
        var radix: UInt64 = 10
        if byte(at: index) == UInt8(ascii: "0") {
            switch byte(at: index + 1) {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: break
            }
        }
        if radix != 10 {
            guard index == word.lowerBound else {
                throw failure("invalid integer \(shown(word)): only decimal integers may have a sign", at: word.lowerBound)
            }
            index += 2
        } else if byte(at: index) == UInt8(ascii: "0"), index + 1 < word.upperBound,
                  isDigit(byte(at: index + 1)) || byte(at: index + 1) == UInt8(ascii: "_") {
            throw failure("invalid integer \(shown(word)): leading zeros are not allowed", at: word.lowerBound)
        }
        var overflow = false
        guard let magnitude = digits(index..<word.upperBound, radix: radix, overflow: &overflow) else {
            throw failure("invalid integer \(shown(word))", at: word.lowerBound)
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard !overflow, magnitude <= limit else {
            throw failure("integer \(shown(word)) does not fit in 64 bits", at: word.lowerBound)
        }
        if negative {
            return magnitude == limit ? Int(Int64.min) : -Int(magnitude)
        }
        return Int(magnitude)
    }

    /// `[sign] int-part (fraction [exponent] | exponent)`, the integer part
    /// without leading zeros, every digit run with underscores only between digits.
    private func readFloat(_ word: Range<Int>) throws(TOMLError) -> Double {
        func invalid() -> TOMLError { failure("invalid float \(shown(word))", at: word.lowerBound) }
        var index = word.lowerBound
        if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < word.upperBound, isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "_") { index += 1 }
        guard isDecimalRun(integerStart..<index) else { throw invalid() }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
            throw failure("invalid float \(shown(word)): leading zeros are not allowed", at: word.lowerBound)
        }
        if byte(at: index) == UInt8(ascii: "."), index < word.upperBound {
            let fractionStart = index + 1
            index = fractionStart
            while index < word.upperBound, isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "_") { index += 1 }
            guard isDecimalRun(fractionStart..<index) else { throw invalid() }
        }
        if index < word.upperBound, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < word.upperBound, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDecimalRun(index..<word.upperBound) else { throw invalid() }
            index = word.upperBound
        }
        guard index == word.upperBound else { throw invalid() }
        let text = String(decoding: bytes[word].filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        guard let number = Double(text) else { throw invalid() }
        guard number.isFinite else {
            throw failure("float \(shown(word)) is too large for a 64-bit float", at: word.lowerBound)
        }
        return number
    }

    /// The value of a run of digits in `radix`, with single underscores
    /// between digits; nil when the run is empty or malformed. `overflow`
    /// is set when the value passes UInt64's range (reading goes on, to check the form).
    func digits(_ run: Range<Int>, radix: UInt64, overflow: inout Bool) -> UInt64? {
        guard run.lowerBound < run.upperBound else { return nil }
        var value: UInt64 = 0
        var afterDigit = false
        var index = run.lowerBound
        while index < run.upperBound {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "_") {
                guard afterDigit, index < run.upperBound, digitValue(bytes[index], radix: radix) != nil else { return nil }
                afterDigit = false
                continue
            }
            guard let digit = digitValue(byte, radix: radix) else { return nil }
            let shifted = value.multipliedReportingOverflow(by: radix)
            let sum = shifted.partialValue.addingReportingOverflow(digit)
            if shifted.overflow || sum.overflow { overflow = true }
            value = sum.partialValue
            afterDigit = true
        }
        return value
    }

    /// Whether `run` is a well-formed run of decimal digits and underscores.
    private func isDecimalRun(_ run: Range<Int>) -> Bool {
        var overflow = false
        return digits(run, radix: 10, overflow: &overflow) != nil
    }

    private func digitValue(_ byte: UInt8, radix: UInt64) -> UInt64? {
        let value: UInt64
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }
}
