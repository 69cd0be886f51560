import FoundationEssentials

/// When a new optional version may be offered (SPEC §16, after Zincati's
/// `periodic` strategy): weekly windows of wall-clock time in one zone.
///
/// An instant is inside a window when its weekday and time in the zone
/// lie in [start, start + minutes) of a listed day, so over a change to or
/// from daylight time a window follows the wall clock: in a skipped hour
/// it shrinks or vanishes, in a repeated hour it may be entered twice.
/// Overlapping or touching windows are one window.
package struct OfferWindows: Sendable, Equatable {
    /// One table of `offer-windows`.
    package struct Window: Sendable, Equatable {
        /// 0 Monday … 6 Sunday.
        package var days: [Int]
        /// Minutes after midnight, 0…1439.
        package var start: Int
        package var minutes: Int

        package init(days: [Int], start: Int, minutes: Int) {
            self.days = days
            self.start = start
            self.minutes = minutes
        }
    }

    /// The weekday names a window's `days` takes, Monday first.
    package static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    package static let minutesPerWeek = 10_080

    package var windows: [Window]
    package var zone: ZoneRules
    /// The windows merged on the week's circle: start minute of the week
    /// (Monday 00:00 is 0) and length in minutes; ends may pass the week's
    /// end. Empty when the windows cover the whole week.
    private var merged: [(start: Int, length: Int)]

    package init(_ windows: [Window], zone: ZoneRules) {
        self.windows = windows
        self.zone = zone
        merged = Self.merge(windows)
    }

    package static func == (left: OfferWindows, right: OfferWindows) -> Bool {
        left.windows == right.windows && left.zone == right.zone
    }

    /// True when every instant is inside a window.
    package var alwaysOpen: Bool { merged.isEmpty }

    /// Overlapping or touching intervals of the week, as one.
    private static func merge(_ windows: [Window]) -> [(start: Int, length: Int)] {
        var spans = windows.flatMap { window in
            window.days.map { (start: $0 * 1_440 + window.start, end: $0 * 1_440 + window.start + window.minutes) }
        }.sorted { $0.start < $1.start }
        var joined: [(start: Int, end: Int)] = []
        for span in spans {
            if let last = joined.last, span.start <= last.end {
                joined[joined.count - 1].end = max(last.end, span.end)
            } else {
                joined.append(span)
            }
        }
        // A span past the week's end runs into the next week's first spans.
        while joined.count > 1, let last = joined.last, last.end >= joined[0].start + minutesPerWeek {
            joined[joined.count - 1].end = max(last.end, joined[0].end + minutesPerWeek)
            joined.removeFirst()
        }
        spans = joined
        if spans.contains(where: { $0.end - $0.start >= minutesPerWeek }) { return [] }
        return spans.map { (start: $0.start, length: $0.end - $0.start) }
    }

    /// When an offer is made, and the window it is made in.
    package struct Offer: Sendable, Equatable {
        /// The first instant the offer may be made.
        package var at: Date
        /// The window's first instant and the first instant after it; nil
        /// when the windows cover the whole week.
        package var windowStart: Date?
        package var windowEnd: Date?
    }

    /// How far the search for a window goes: a zone whose clock skips
    /// every window for a year has none to offer.
    private static let horizonSeconds: Int64 = 400 * 86_400
    /// How many stretches of one offset the search looks at, at most.
    private static let maximumStretches = 4_096

    /// The offer for a version whose phased offer instant is `from` (A =
    /// T + p × W), for the machine at `position` p: the first instant ≥ A
    /// inside a window whose wall-clock time is at least floor(p × L)
    /// minutes after that window's start (L its length; at most its last
    /// minute). Nil when no window opens within 400 days of A (or 4,096
    /// changes of the zone's offset).
    package func offer(from: Date, position: Double) -> Offer? {
        let first = Int64(CivilTime.clampedSeconds(from).rounded(.up))
        guard !alwaysOpen else { return Offer(at: Date(seconds: first), windowStart: nil, windowEnd: nil) }
        let p = position.isFinite ? min(max(position, 0), 1) : 0
        var instant = first
        // Real zones change a few times a year; a file that changes every
        // minute (a hostile /etc/localtime) costs a bounded search, no hang.
        var stretches = 0
        while instant - first <= Self.horizonSeconds, stretches < Self.maximumStretches {
            stretches += 1
            let offset = Int64(zone.offset(at: instant))
            let change = zone.nextChange(after: instant)
            let wallEnd = change.map { $0 + offset } ?? Int64.max
            if let found = firstAllowed(wallFrom: instant + offset, before: wallEnd, position: p) {
                let at = found.wall - offset
                return Offer(
                    at: Date(seconds: at),
                    windowStart: Date(seconds: start(of: found.window, before: at)),
                    windowEnd: Date(seconds: end(of: found.window, after: at))
                )
            }
            guard let change else { return nil }
            instant = change
        }
        return nil
    }

    /// The first wall-clock second in [`from`, `before`) inside a window
    /// and at least its share of minutes after the window's start, with
    /// that window's wall-clock start and end.
    private func firstAllowed(wallFrom from: Int64, before: Int64, position: Double) -> (wall: Int64, window: (start: Int64, end: Int64))? {
        var best: (wall: Int64, window: (start: Int64, end: Int64))?
        let week = Int64(Self.minutesPerWeek) * 60
        let monday = Self.weekStart(from)
        // A window begun last week may still be open; every week has one.
        for weeks in -1...2 {
            for span in merged {
                let start = monday + Int64(weeks) * week + Int64(span.start) * 60
                let end = start + Int64(span.length) * 60
                let delay = min(Int64((position * Double(span.length)).rounded(.down)), Int64(span.length - 1))
                let candidate = max(from, start + delay * 60)
                guard candidate < min(before, end) else { continue }
                if best.map({ candidate < $0.wall }) ?? true { best = (candidate, (start, end)) }
            }
        }
        return best
    }

    /// Monday 00:00 of the week holding the wall-clock second `wall`
    /// (1970-01-01 was a Thursday).
    private static func weekStart(_ wall: Int64) -> Int64 {
        let day = wall >= 0 ? wall / 86_400 : (wall - 86_399) / 86_400
        let weekday = ((day + 3) % 7 + 7) % 7
        return (day - weekday) * 86_400
    }

    /// The first instant of the window holding `instant`, whose wall-clock
    /// span is `window`: where the wall clock entered it, walking back over
    /// offset changes (a skipped start is the change's instant).
    private func start(of window: (start: Int64, end: Int64), before instant: Int64) -> Int64 {
        var current = instant
        for _ in 0..<8 {
            let offset = Int64(zone.offset(at: current))
            let candidate = window.start - offset
            // The window opened in this offset's stretch, or at its first instant.
            guard let change = previousChange(before: current), candidate <= change else { return min(candidate, instant) }
            // The offset changed after the window opened: was it open just before?
            let wall = change - 1 + Int64(zone.offset(at: change - 1))
            guard wall >= window.start, wall < window.end else { return change }
            current = change - 1
        }
        return current
    }

    /// The first instant after the window holding `instant`.
    private func end(of window: (start: Int64, end: Int64), after instant: Int64) -> Int64 {
        var current = instant
        for _ in 0..<8 {
            let offset = Int64(zone.offset(at: current))
            let candidate = window.end - offset
            // The window closes in this offset's stretch, unless the clock moves first.
            guard let change = zone.nextChange(after: current), change <= candidate else { return candidate }
            let wall = change + Int64(zone.offset(at: change))
            guard wall >= window.start, wall < window.end else { return change }
            current = change
        }
        return current
    }

    /// The last offset change at or before `instant`, within a week.
    private func previousChange(before instant: Int64) -> Int64? {
        var probe = instant - 7 * 86_400
        var last: Int64?
        while let change = zone.nextChange(after: probe), change <= instant {
            last = change
            probe = change
        }
        return last
    }
}

extension Date {
    fileprivate init(seconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(seconds)) }
}
