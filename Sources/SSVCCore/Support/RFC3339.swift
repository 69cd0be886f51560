public import FoundationEssentials

/// Times as ssvc shows them: RFC 3339, UTC, whole seconds.
public enum RFC3339 {
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// Reads `2026-01-02T03:04:05Z`, with an optional fraction of a second
    /// and a `Z` or `±hh:mm` offset. Nil when the text is not such a time.
    public static func parse(_ text: String) -> Date? {
        let plain = Date.ISO8601FormatStyle(timeZone: .gmt)
        if let date = try? plain.parse(text) { return date }
        return try? plain.time(includingFractionalSeconds: true).parse(text)
    }
}
