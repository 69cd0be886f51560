public import FoundationEssentials

/// What `state.json` holds: per app, the schedule's memory and the last good
/// response. Versioned so that a later release can read it or refuse it.
public struct DaemonState: Sendable, Equatable, Codable {
    public static let currentSchema = 1

    public var schema: Int
    public var apps: [String: AppState]

    public init(apps: [String: AppState] = [:]) {
        self.schema = Self.currentSchema
        self.apps = apps
    }
}

/// One app's history and last good answer.
public struct AppState: Sendable, Equatable, Codable {
    /// The first check attempted since the app was configured (absent in
    /// files of earlier releases).
    public var firstCheck: Date?
    /// The last check attempted, successful or not.
    public var lastCheck: Date?
    public var lastSuccess: Date?
    /// The last request actually sent.
    public var lastFetch: Date?
    public var consecutiveFailures: Int
    public var lastError: String?
    /// From the server's Retry-After.
    public var retryNotBefore: Date?
    public var etag: String?
    /// The last good response, raw; a failed check never replaces it.
    public var response: String?
    /// What the last good response decided.
    public var decision: Decision?
    /// The last good response's verified signature; nil when unsigned.
    public var signature: AcceptedSignature?
    /// The newest signature time accepted for this app, kept when keys
    /// change: a signature made before it is refused as a rollback.
    public var newestSignatureTime: Date?
    /// The running version the decision was made for.
    public var currentVersion: String?
    public var currentVersionNumber: UInt64?
    /// Turkcell message display records, by message key.
    public var messages: [String: MessageDisplayRecord]

    public init() {
        consecutiveFailures = 0
        messages = [:]
    }

    public var history: CheckHistory {
        CheckHistory(lastCheck: lastCheck, lastFetch: lastFetch, consecutiveFailures: consecutiveFailures, retryNotBefore: retryNotBefore)
    }

    /// No success for two periods: since the last success, or, with none,
    /// since the first check (an app whose first check failed a minute ago
    /// is not stale); or the stored response's signature is older than
    /// `signature` allows.
    public func isStale(now: Date, schedule: Schedule, signature: SignatureRequirement? = nil) -> Bool {
        if signature?.hasExpired(signedAt: self.signature?.signedAt, now: now) == true { return true }
        guard let period = schedule.period(at: now) else { return false }
        // A file of an earlier release has no firstCheck: its last check
        // is the latest the first could have been.
        guard let since = lastSuccess ?? firstCheck ?? lastCheck else { return false }
        return now.timeIntervalSince(since) > 2 * period
    }
}
