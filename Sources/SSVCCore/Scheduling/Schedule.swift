import FoundationEssentials

/// How often an app is checked.
package enum Schedule: String, Sendable, Codable, CaseIterable {
    /// Manual checks only.
    case never
    case hourly, daily, weekly
    /// One calendar month (UTC).
    case monthly

    /// The fixed period, or nil for `never` and `monthly` (whose length varies).
    package var fixedPeriod: TimeInterval? {
        switch self {
        case .never, .monthly: nil
        case .hourly: 3_600
        case .daily: 86_400
        case .weekly: 604_800
        }
    }

    /// The length of the period that holds `date`: a month is 28 to 31 days.
    package func period(at date: Date) -> TimeInterval? {
        if let fixedPeriod { return fixedPeriod }
        guard self == .monthly else { return nil }
        return CivilTime.monthStart(containing: date, offset: 1).timeIntervalSince(CivilTime.monthStart(containing: date))
    }
}

/// Why the next check is when it is; shown in every status.
package enum NextCheckReason: String, Sendable, Codable, CaseIterable {
    case firstCheck = "first-check"
    case catchUp = "catch-up"
    case schedule
    case retry
    case retryAfter = "retry-after"
    case manualOnly = "manual-only"
}

/// When an app is next checked, and why. `at` is nil only for `manual-only`.
package struct NextCheck: Sendable, Equatable {
    package var at: Date?
    package var reason: NextCheckReason

    package init(at: Date?, reason: NextCheckReason) {
        self.at = at
        self.reason = reason
    }
}
