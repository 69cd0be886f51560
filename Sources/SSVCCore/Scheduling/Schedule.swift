public import FoundationEssentials

/// How often an app is checked.
public enum Schedule: String, Sendable, Codable, CaseIterable {
    /// Manual checks only.
    case never
    case hourly, daily, weekly
    /// One calendar month (UTC).
    case monthly

    /// The fixed period, or nil for `never` and `monthly` (whose length varies).
    public var fixedPeriod: TimeInterval? {
        switch self {
        case .never, .monthly: nil
        case .hourly: 3_600
        case .daily: 86_400
        case .weekly: 604_800
        }
    }

    /// The length of the period that holds `date`: a month is 28 to 31 days.
    public func period(at date: Date) -> TimeInterval? {
        if let fixedPeriod { return fixedPeriod }
        guard self == .monthly else { return nil }
        return CivilTime.monthStart(containing: date, offset: 1).timeIntervalSince(CivilTime.monthStart(containing: date))
    }
}

/// Why the next check is when it is; shown in every status.
public enum NextCheckReason: String, Sendable, Codable, CaseIterable {
    case firstCheck = "first-check"
    case catchUp = "catch-up"
    case schedule
    case retry
    case retryAfter = "retry-after"
    case manualOnly = "manual-only"
}

/// When an app is next checked, and why. `at` is nil only for `manual-only`.
public struct NextCheck: Sendable, Equatable {
    public var at: Date?
    public var reason: NextCheckReason

    public init(at: Date?, reason: NextCheckReason) {
        self.at = at
        self.reason = reason
    }
}
