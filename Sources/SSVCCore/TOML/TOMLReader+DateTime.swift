extension TOMLReader {
    /// An offset date-time, local date-time, local date or local time
    /// (RFC 3339 with TOML's allowances: `T`, `t` or a space between date and
    /// time, `Z` or `z`). Fields are checked against the calendar: no
    /// 30 February, no 29 February outside leap years, hours to 23, minutes
    /// to 59, seconds to 60 for a leap second. The text is kept as written.
    func readDateTime(_ word: Range<Int>) throws(TOMLError) -> ConfigValue {
        var cursor = word.lowerBound
        let text = String(decoding: bytes[word], as: UTF8.self)
        let invalid = { (reason: String) -> TOMLError in
            failure("invalid date or time \(shown(word)): \(reason)", at: word.lowerBound)
        }

        /// Exactly `count` digits at the cursor, or nil.
        func number(_ count: Int) -> Int? {
            guard cursor + count <= word.upperBound else { return nil }
            var value = 0
            for index in cursor..<cursor + count {
                guard isDigit(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            cursor += count
            return value
        }

        func skip(_ separator: UInt8) -> Bool {
            guard cursor < word.upperBound, bytes[cursor] == separator else { return false }
            cursor += 1
            return true
        }

        /// `HH:MM:SS[.fraction]`; nil when it is right, the reason otherwise.
        func time() -> String? {
            guard let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2) else {
                return "expected a time as HH:MM:SS"
            }
            guard skip(UInt8(ascii: ":")), let second = number(2) else {
                return "expected seconds as two digits (HH:MM:SS)"
            }
            guard hour <= 23 else { return "hour \(hour) is out of range" }
            guard minute <= 59 else { return "minute \(minute) is out of range" }
            guard second <= 60 else { return "second \(second) is out of range" }
            if skip(UInt8(ascii: ".")) {
                let fraction = cursor
                while cursor < word.upperBound, isDigit(bytes[cursor]) { cursor += 1 }
                guard cursor > fraction else { return "expected digits after '.'" }
            }
            return nil
        }

        if byte(at: word.lowerBound + 2) == UInt8(ascii: ":") || byte(at: word.lowerBound + 1) == UInt8(ascii: ":") {
            if let reason = time() { throw invalid(reason) }
            guard cursor == word.upperBound else { throw invalid("unexpected text after the time") }
            return .other(type: "time-local", text: text)
        }

        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")), let day = number(2) else {
            throw invalid("expected a date as YYYY-MM-DD")
        }
        guard (1...12).contains(month) else { throw invalid("month \(month) is out of range") }
        guard day >= 1, day <= daysIn(month: month, year: year) else {
            throw invalid("day \(day) is out of range for the month")
        }
        if cursor == word.upperBound {
            return .other(type: "date-local", text: text)
        }
        guard skip(UInt8(ascii: "T")) || skip(UInt8(ascii: "t")) || skip(UInt8(ascii: " ")) else {
            throw invalid("expected 'T' or a space between the date and the time")
        }
        if let reason = time() { throw invalid(reason) }
        if cursor == word.upperBound {
            return .other(type: "datetime-local", text: text)
        }
        if !skip(UInt8(ascii: "Z")), !skip(UInt8(ascii: "z")) {
            guard skip(UInt8(ascii: "+")) || skip(UInt8(ascii: "-")) else {
                throw invalid("expected 'Z' or an offset after the time")
            }
            guard let hours = number(2), skip(UInt8(ascii: ":")), let minutes = number(2) else {
                throw invalid("expected an offset as +HH:MM or -HH:MM")
            }
            guard hours <= 23, minutes <= 59 else { throw invalid("the offset is out of range") }
        }
        guard cursor == word.upperBound else { throw invalid("unexpected text after the offset") }
        return .other(type: "datetime", text: text)
    }

    private func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
