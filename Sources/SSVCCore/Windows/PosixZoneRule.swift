import FoundationEssentials

/// A POSIX TZ rule, as a TZif footer holds it (RFC 8536 §3.3, with its
/// version 3 extensions): `CET-1CEST,M3.5.0,M10.5.0/3`. It gives the
/// offset for every year after the file's last transition.
struct PosixZoneRule: Sendable, Equatable {
    /// Seconds east of UTC in standard time, and in daylight time.
    var standard: Int32
    var daylight: Int32?
    /// When daylight time starts and ends, in local time.
    var start: DateRule
    var end: DateRule

    /// A day of a year and a time of that day (`Mm.w.d/time`, `Jn`, `n`).
    struct DateRule: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            /// Julian day 1…365, February 29 never counted.
            case julian(Int)
            /// Day 0…365 of the year, February 29 counted.
            case zeroBased(Int)
            /// Day `weekday` (0 Sunday) of week 1…5 (5: the last) of `month`.
            case weekday(month: Int, week: Int, weekday: Int)
        }

        var day: Day
        /// Seconds after that day's midnight, -167 h to +167 h.
        var time: Int

        /// Days since 1970 of this rule's day in `year`.
        func daysSinceEpoch(year: Int) -> Int {
            let january = CivilTime.daysSinceEpoch(year: year, month: 1, day: 1)
            switch day {
            case .julian(let n):
                return january + n - 1 + (CivilTime.isLeap(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                return january + n
            case .weekday(let month, let week, let weekday):
                let first = CivilTime.daysSinceEpoch(year: year, month: month, day: 1)
                // 1970-01-01 was a Thursday (4).
                let firstWeekday = ((first + 4) % 7 + 7) % 7
                var day = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
                while day > CivilTime.daysIn(month: month, year: year) { day -= 7 }
                return first + day - 1
            }
        }
    }

    /// The default rule when a TZ string names daylight time but no dates
    /// (POSIX leaves it to the system; glibc takes the US rule).
    private static let defaultStart = DateRule(day: .weekday(month: 3, week: 2, weekday: 0), time: 7_200)
    private static let defaultEnd = DateRule(day: .weekday(month: 11, week: 1, weekday: 0), time: 7_200)

    init(parsing text: String) throws(ZoneRulesError) {
        var scanner = Scanner(Array(text.utf8))
        try scanner.name()
        standard = -(try scanner.offset(hoursUpTo: 24))
        daylight = nil
        start = Self.defaultStart
        end = Self.defaultEnd
        if scanner.atEnd { return }
        try scanner.name()
        var daylight = standard + 3_600
        if let next = scanner.peek, next != UInt8(ascii: ",") { daylight = -(try scanner.offset(hoursUpTo: 24)) }
        self.daylight = daylight
        if scanner.atEnd { return }
        try scanner.expect(UInt8(ascii: ","))
        start = try scanner.dateRule()
        try scanner.expect(UInt8(ascii: ","))
        end = try scanner.dateRule()
        guard scanner.atEnd else { throw ZoneRulesError("unexpected text after the end rule") }
    }

    /// The changes in `year` and the offset from each on, as instants.
    private func changes(year: Int) -> [(instant: Int64, offset: Int32)] {
        guard let daylight else { return [] }
        // A start is in standard local time, an end in daylight local time.
        let on = Int64(start.daysSinceEpoch(year: year)) * 86_400 + Int64(start.time) - Int64(standard)
        let off = Int64(end.daysSinceEpoch(year: year)) * 86_400 + Int64(end.time) - Int64(daylight)
        // At one instant (daylight time all year), the end comes first.
        return off <= on ? [(off, standard), (on, daylight)] : [(on, daylight), (off, standard)]
    }

    private func changes(around instant: Int64) -> [(instant: Int64, offset: Int32)] {
        let seconds = Double(instant)
        let year = CivilTime.components(of: Date(timeIntervalSince1970: seconds)).year
        return (year - 1...year + 2).flatMap { changes(year: $0) }.sorted { $0.instant < $1.instant }
    }

    func offset(at instant: Int64) -> Int32 {
        guard daylight != nil else { return standard }
        return changes(around: instant).last { $0.instant <= instant }?.offset ?? standard
    }

    func nextChange(after instant: Int64) -> Int64? {
        guard daylight != nil else { return nil }
        return changes(around: instant).first { $0.instant > instant }?.instant
    }
}

/// The characters of a TZ string, read left to right.
private struct Scanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[position] }

    mutating func expect(_ byte: UInt8) throws(ZoneRulesError) {
        guard peek == byte else { throw ZoneRulesError("expected '\(Character(Unicode.Scalar(byte)))' at character \(position + 1)") }
        position += 1
    }

    /// `EST` (three or more letters) or `<+0330>` (letters, digits, + and -).
    mutating func name() throws(ZoneRulesError) {
        let begin = position
        if peek == UInt8(ascii: "<") {
            position += 1
            while let byte = peek, byte != UInt8(ascii: ">") {
                guard Self.isLetter(byte) || Self.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") else {
                    throw ZoneRulesError("a quoted zone abbreviation holds something other than letters, digits, + and -")
                }
                position += 1
            }
            try expect(UInt8(ascii: ">"))
            guard position - begin - 2 >= 3 else { throw ZoneRulesError("a zone abbreviation is shorter than three characters") }
        } else {
            while let byte = peek, Self.isLetter(byte) { position += 1 }
            guard position - begin >= 3 else { throw ZoneRulesError("a zone abbreviation is shorter than three letters") }
        }
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours at most `hoursUpTo`.
    mutating func offset(hoursUpTo limit: Int) throws(ZoneRulesError) -> Int32 {
        var sign = 1
        if peek == UInt8(ascii: "+") {
            position += 1
        } else if peek == UInt8(ascii: "-") {
            sign = -1
            position += 1
        }
        let hours = try number(digits: 1...3)
        guard hours <= limit else { throw ZoneRulesError("an hour of \(hours) is past \(limit)") }
        var seconds = hours * 3_600
        if peek == UInt8(ascii: ":") {
            position += 1
            let minutes = try number(digits: 2...2)
            guard minutes < 60 else { throw ZoneRulesError("a minute of \(minutes)") }
            seconds += minutes * 60
            if peek == UInt8(ascii: ":") {
                position += 1
                let secs = try number(digits: 2...2)
                guard secs < 60 else { throw ZoneRulesError("a second of \(secs)") }
                seconds += secs
            }
        }
        return Int32(sign * seconds)
    }

    /// `Jn`, `n` or `Mm.w.d`, then `/time` or 02:00.
    mutating func dateRule() throws(ZoneRulesError) -> PosixZoneRule.DateRule {
        let day: PosixZoneRule.DateRule.Day
        if peek == UInt8(ascii: "J") {
            position += 1
            let n = try number(digits: 1...3)
            guard (1...365).contains(n) else { throw ZoneRulesError("a Julian day of \(n)") }
            day = .julian(n)
        } else if peek == UInt8(ascii: "M") {
            position += 1
            let month = try number(digits: 1...2)
            try expect(UInt8(ascii: "."))
            let week = try number(digits: 1...1)
            try expect(UInt8(ascii: "."))
            let weekday = try number(digits: 1...1)
            guard (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else {
                throw ZoneRulesError("a day rule M\(month).\(week).\(weekday) out of range")
            }
            day = .weekday(month: month, week: week, weekday: weekday)
        } else {
            let n = try number(digits: 1...3)
            guard n <= 365 else { throw ZoneRulesError("a day of the year of \(n)") }
            day = .zeroBased(n)
        }
        var time = 7_200
        if peek == UInt8(ascii: "/") {
            position += 1
            time = Int(try offset(hoursUpTo: 167))
        }
        return PosixZoneRule.DateRule(day: day, time: time)
    }

    private mutating func number(digits: ClosedRange<Int>) throws(ZoneRulesError) -> Int {
        let begin = position
        var value = 0
        while let byte = peek, Self.isDigit(byte), position - begin < digits.upperBound {
            value = value * 10 + Int(byte - 0x30)
            position += 1
        }
        guard position - begin >= digits.lowerBound else { throw ZoneRulesError("expected a number at character \(begin + 1)") }
        return value
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
