public import FoundationEssentials

/// Calendar arithmetic in UTC without a `Calendar` (which needs ICU):
/// days from the civil date, after Howard Hinnant's well-known algorithm.
public enum CivilTime {
    /// The years this arithmetic takes: those of RFC 3339 and HTTP dates.
    public static let years = 0...9999
    /// The seconds since 1970 of the first and the last instant of `years`.
    public static let representableSeconds: ClosedRange<Double> = -62_167_219_200...253_402_300_799

    /// The instant of `year-month-day hour:minute` UTC; nil for an
    /// impossible date (`2013-02-30`, `24:00`) or a year outside 0…9999.
    public static func date(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0) -> Date? {
        guard years.contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60))
    }

    public static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The UTC calendar date of `date`, taken into years 0…9999.
    public static func components(of date: Date) -> (year: Int, month: Int, day: Int) {
        let days = Int((clampedSeconds(date) / 86_400).rounded(.down))
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The first instant of the UTC month `months` after the one holding `date`.
    public static func monthStart(containing date: Date, offset months: Int = 0) -> Date {
        let (year, month, _) = components(of: date)
        let index = year * 12 + (month - 1) + months
        let (y, m) = (index >= 0 ? index / 12 : (index - 11) / 12, ((index % 12) + 12) % 12 + 1)
        return Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch(year: y, month: m, day: 1) * 86_400))
    }

    /// `date`'s seconds since 1970, within `representableSeconds` (NaN as 0):
    /// safe to convert to an integer.
    public static func clampedSeconds(_ date: Date) -> Double {
        let seconds = date.timeIntervalSince1970
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, representableSeconds.lowerBound), representableSeconds.upperBound)
    }

    /// Reads Turkcell's `yyyy-MM-dd` or `yyyy-MM-dd HH:mm`, as UTC.
    public static func parseDayOrMinute(_ text: String) -> Date? {
        let parts = text.trimmingSpaces.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard day.count == 3, day[0].count == 4, day[1].count == 2, day[2].count == 2,
              let year = number(day[0]), let month = number(day[1]), let dayOfMonth = number(day[2])
        else { return nil }
        var hour = 0
        var minute = 0
        if parts.count == 2 {
            let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard time.count == 2, time[0].count == 2, time[1].count == 2,
                  let h = number(time[0]), let m = number(time[1]) else { return nil }
            hour = h
            minute = m
        }
        return date(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute)
    }

    private static func number(_ digits: Substring) -> Int? {
        digits.utf8.allSatisfy(DigitRun.isDigit) ? Int(digits) : nil
    }
}
