import FoundationEssentials

/// The schedule arithmetic of one app on one machine: pure functions of the
/// time, the app's history and a phase, so that they can be tested without
/// clocks and the fleet simulation can run the real thing.
///
/// Every app has a phase in [0, 1) from a hash of the machine id and the app
/// name. Regular checks fall on the phase point of each period (`phase ×
/// period` after the period's start), so a fleet's load on a server is flat
/// however its machines booted; first checks and catch-ups are spread over a
/// window by the same phase.
package struct SchedulePlanner: Sendable {
    package var schedule: Schedule
    package var phase: Double
    package var policy: SchedulePolicy

    package init(schedule: Schedule, phase: Double, policy: SchedulePolicy = SchedulePolicy()) {
        self.schedule = schedule
        self.phase = min(max(phase, 0), 0.999_999_999)
        self.policy = policy
    }

    /// The machine's phase for `app`: stable across restarts, spread over
    /// [0, 1) for machines and for the apps of one machine alike. (FNV-1a
    /// alone, used here at first, put apps named app1…app19 on one machine
    /// at two instants a few milliseconds wide; found by the virtual-time tests.)
    package static func phase(machineID: String, app: String) -> Double {
        StableHash.fraction(machineID + "\u{0}" + app)
    }

    /// The first phase point strictly after `date`; nil for `never`.
    package func nextPhasePoint(after date: Date) -> Date? {
        if let period = schedule.fixedPeriod {
            let offset = phase * period
            let index = ((date.timeIntervalSince1970 - offset) / period).rounded(.down) + 1
            return Date(timeIntervalSince1970: index * period + offset)
        }
        guard schedule == .monthly else { return nil }
        for months in 0...2 {
            let start = CivilTime.monthStart(containing: date, offset: months)
            let length = CivilTime.monthStart(containing: start, offset: 1).timeIntervalSince(start)
            let point = start.addingTimeInterval(phase * length)
            if point > date { return point }
        }
        return nil
    }

    /// Whether a check at `lastCheck` is a whole period old at `now`.
    package func isOverdue(lastCheck: Date, now: Date) -> Bool {
        switch schedule {
        case .never: return false
        case .monthly:
            let (year, month, day) = CivilTime.components(of: lastCheck)
            let next = month == 12 ? (year + 1, 1) : (year, month + 1)
            let dayInNext = min(day, CivilTime.daysIn(month: next.1, year: next.0))
            let timeOfDay = lastCheck.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
            let due = (CivilTime.date(year: next.0, month: next.1, day: dayInNext) ?? now).addingTimeInterval(timeOfDay)
            return now >= due
        default:
            return now.timeIntervalSince(lastCheck) >= (schedule.fixedPeriod ?? 0)
        }
    }

    /// The delay before retry number `failures` (1 = first retry): one minute,
    /// doubling, capped at min(period, 1 h), then scaled by 0.5 + 0.5 × `jitter`
    /// so that machines that failed together do not retry together.
    package func backoff(failures: Int, jitter: Double) -> TimeInterval {
        let cap = min(schedule.period(at: Date(timeIntervalSince1970: 0)) ?? 3_600, 3_600)
        let doublings = min(max(failures, 1), 31) - 1
        let delay = min(60 * Double(UInt64(1) << doublings), cap)
        return delay * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    /// When to check next.
    ///
    /// | situation                                   | next check                                   | reason        |
    /// |---------------------------------------------|----------------------------------------------|---------------|
    /// | `never`                                     | none                                         | `manual-only` |
    /// | last check failed                           | last check + backoff                         | `retry`       |
    /// | … and the server's Retry-After is later     | that time (at most 24 h away)                | `retry-after` |
    /// | never checked                               | start + phase × min(period, first window)    | `first-check` |
    /// | a period overdue at start                   | start + phase × min(period, catch-up window) | `catch-up`    |
    /// | otherwise                                   | first phase point after last + period/2      | `schedule`    |
    ///
    /// A last check in the future (the clock was set back) counts as now.
    /// Nothing is planned before `now`, nor within the minimum interval of
    /// the last fetch.
    package func plan(now: Date, history: CheckHistory, atStart: Bool, jitter: Double) -> NextCheck {
        guard schedule != .never, let period = schedule.period(at: now) else {
            return NextCheck(at: nil, reason: .manualOnly)
        }
        let last = history.lastCheck.map { min($0, now) }
        var next: NextCheck
        if let last, history.consecutiveFailures > 0 {
            next = NextCheck(at: last.addingTimeInterval(backoff(failures: history.consecutiveFailures, jitter: jitter)), reason: .retry)
            if let retryAfter = history.retryNotBefore.map({ min($0, now.addingTimeInterval(Self.maximumRetryAfter)) }),
               retryAfter > next.at! {
                next = NextCheck(at: retryAfter, reason: .retryAfter)
            }
        } else if let last {
            if atStart && isOverdue(lastCheck: last, now: now) {
                next = NextCheck(at: now.addingTimeInterval(phase * min(period, policy.catchUpWindow)), reason: .catchUp)
            } else {
                next = NextCheck(at: nextPhasePoint(after: last.addingTimeInterval(period / 2)), reason: .schedule)
            }
        } else {
            next = NextCheck(at: now.addingTimeInterval(phase * min(period, policy.firstCheckWindow)), reason: .firstCheck)
        }
        var at = max(next.at ?? now, now)
        if let lastFetch = history.lastFetch.map({ min($0, now) }) {
            at = max(at, lastFetch.addingTimeInterval(policy.minimumInterval))
        }
        next.at = at
        return next
    }

    /// Retry-After values are honoured up to this far ahead.
    package static let maximumRetryAfter: TimeInterval = 86_400
}

/// The windows and limits of SPEC §5, from `[daemon]`.
package struct SchedulePolicy: Sendable, Equatable {
    package var firstCheckWindow: TimeInterval
    package var catchUpWindow: TimeInterval
    /// No app is fetched more often than this, manual checks included.
    package var minimumInterval: TimeInterval

    package init(firstCheckWindow: TimeInterval = 600, catchUpWindow: TimeInterval = 3_600, minimumInterval: TimeInterval = 30) {
        self.firstCheckWindow = firstCheckWindow
        self.catchUpWindow = catchUpWindow
        self.minimumInterval = minimumInterval
    }
}

/// What the planner needs to know of an app's past.
package struct CheckHistory: Sendable, Equatable {
    package var lastCheck: Date?
    /// The last request actually sent (a check answered from the stored
    /// result inside the minimum interval sends none).
    package var lastFetch: Date?
    package var consecutiveFailures: Int
    package var retryNotBefore: Date?

    package init(lastCheck: Date? = nil, lastFetch: Date? = nil, consecutiveFailures: Int = 0, retryNotBefore: Date? = nil) {
        self.lastCheck = lastCheck
        self.lastFetch = lastFetch
        self.consecutiveFailures = consecutiveFailures
        self.retryNotBefore = retryNotBefore
    }
}
