public import FoundationEssentials

/// HTTP's `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The time before which the server asked not to be asked again, at most
    /// `SchedulePlanner.maximumRetryAfter` from `now`; nil when unreadable.
    public static func parse(_ value: String, now: Date) -> Date? {
        let text = value.trimmingSpaces
        let date: Date
        if !text.isEmpty, text.utf8.allSatisfy(DigitRun.isDigit) {
            guard let seconds = Double(text) else { return nil }
            date = now.addingTimeInterval(seconds)
        } else if let parsed = httpDate(text) {
            date = parsed
        } else {
            return nil
        }
        return min(max(date, now), now.addingTimeInterval(SchedulePlanner.maximumRetryAfter))
    }

    /// `X-RateLimit-Reset` (GitHub's): the Unix second the limit resets,
    /// within the same bounds as `parse`; nil when unreadable.
    public static func rateLimitReset(_ value: String, now: Date) -> Date? {
        let text = value.trimmingSpaces
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy(DigitRun.isDigit), let seconds = Double(text) else { return nil }
        return min(max(Date(timeIntervalSince1970: seconds), now), now.addingTimeInterval(SchedulePlanner.maximumRetryAfter))
    }

    /// IMF-fixdate, the form servers must send: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let year = Int(parts[3]),
              let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
                .firstIndex(of: String(parts[2])).map({ $0 + 1 })
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
              (0...60).contains(second),
              let start = CivilTime.date(year: year, month: month, day: day, hour: hour, minute: minute)
        else { return nil }
        return start.addingTimeInterval(TimeInterval(second))
    }
}
