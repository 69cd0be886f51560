public import FoundationEssentials

/// Times as ssvc shows them: RFC 3339, UTC, whole seconds.
public enum RFC3339 {
    /// `2026-01-02T03:04:05Z`. A time outside the years 0…9999 is shown at
    /// the nearest end of them, never as a year of six digits.
    public static func format(_ date: Date) -> String {
        Date(timeIntervalSince1970: CivilTime.clampedSeconds(date)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// Reads RFC 3339's `date-time`: `2026-01-02T03:04:05Z`, with an
    /// optional fraction of a second and a `Z` or `±hh:mm` offset (`t`, `z`
    /// and a space for the `T` allowed, as the RFC allows). Every field must
    /// be possible: `2026-02-30`, `T24:00`, `:61` and an offset past 23:59
    /// are refused, never rolled over into another time; a leap second
    /// (`:60`) is the next minute's first. Nil when the text is not such a
    /// time.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 64 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard DigitRun.isDigit(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[10]),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19), second <= 60,
              let start = CivilTime.date(year: year, month: month, day: day, hour: hour, minute: minute)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            let first = index
            while index < bytes.count, DigitRun.isDigit(bytes[index]) {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > first else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard bytes.count - index == 6, bytes[index + 3] == UInt8(ascii: ":"),
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours <= 23, minutes <= 59
            else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        return start.addingTimeInterval(TimeInterval(second - offset) + fraction)
    }
}
