@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore

/// Times as people read them in a table, as `systemctl list-timers` shows
/// them: local time, and how far from now ("in 39 min", "3 h ago").
/// `--json`, the journal and the metrics keep RFC 3339 UTC.
enum TimeText {
    /// `2026-11-24 23:41 CET (in 39 min)`; the text as it is when it is
    /// not an RFC 3339 time.
    static func shown(_ rfc3339: String, now: Date = Date()) -> String {
        guard let date = RFC3339.parse(rfc3339) else { return rfc3339 }
        return "\(local(date)) (\(relative(date, now: now)))"
    }

    /// `rfc3339` in local time, or as it is when it is not such a time.
    static func local(_ rfc3339: String) -> String {
        RFC3339.parse(rfc3339).map(local) ?? rfc3339
    }

    /// The local date and minute with the zone's abbreviation, from the
    /// C library (TZ, /etc/localtime): no ICU.
    static func local(_ date: Date) -> String {
        formatted(date, "%Y-%m-%d %H:%M %Z")
    }

    /// `Sat 23:30 UTC`: the weekday and minute in local time, for times
    /// within a week (an offer window's).
    static func weekday(_ date: Date) -> String {
        formatted(date, "%a %H:%M %Z")
    }

    /// `date` in local time by strftime's `pattern`; RFC 3339 UTC when the
    /// C library cannot convert it.
    private static func formatted(_ date: Date, _ pattern: String) -> String {
        var seconds = time_t(CivilTime.clampedSeconds(date).rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return RFC3339.format(date) }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "in 39 min", "3 h ago", "2 days ago", "now".
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        let span = abs(seconds)
        let amount: String
        switch span {
        case ..<60: return "now"
        case ..<3_600: amount = "\(Int(span / 60)) min"
        case ..<(2 * 86_400): amount = "\(Int(span / 3_600)) h"
        default: amount = "\(Int(span / 86_400)) days"
        }
        return seconds > 0 ? "in \(amount)" : "\(amount) ago"
    }
}
