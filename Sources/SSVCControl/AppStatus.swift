import FoundationEssentials
public import SSVCCore

/// One app as `GetStatus` and `ssvcctl status` show it: a plain value, as
/// the daemon's report of the app derived it.
public struct AppStatus: Sendable, Equatable, Codable {
    public var name: String
    public var format: ResponseFormat
    /// Nil for an app that asks only about advisories.
    public var url: String?
    public var schedule: Schedule
    /// The proxy its requests go through, password hidden; nil when direct.
    public var proxy: String?
    public var status: UpdateStatus
    public var currentVersion: String?
    public var currentVersionNumber: UInt64?
    public var latestVersion: String?
    public var latestVersionNumber: UInt64?
    public var minimumSupportedVersionNumber: UInt64?
    public var availableSince: String?
    public var lastCheck: String?
    public var lastSuccess: String?
    public var nextCheck: String?
    public var nextCheckReason: NextCheckReason
    public var consecutiveFailures: Int
    public var lastError: String?
    /// No success for two periods, or the stored response's signature is
    /// older than `max-signature-age-days`.
    public var stale: Bool
    /// The trusted comment's time of the stored response's signature.
    public var signedAt: String?
    /// The key that signed it, as minisign prints key ids.
    public var signatureKeyId: String?
    public var note: String?
    public var description: UpdateDescription?
    /// A newer version phased in later on this machine, and when (RFC 3339).
    public var pendingVersion: String?
    /// When the pending version is offered here, if time alone decides it;
    /// nil while the server's cap holds it.
    public var offerAt: String?
    /// The server's cap on the pending version's rollout, 0–100; nil: none.
    public var rolloutPercentage: Double?
    /// The share of the rollout this machine waits for (its position ×
    /// 100): the cap must rise above it. Set while the cap holds the offer.
    public var offerAtPercentage: Double?
    /// `ssvcctl hold`: the version held at, and since when (RFC 3339).
    public var hold: String?
    public var holdSince: String?
    /// A newer version kept back on this machine, by `heldBy` (`hold`,
    /// `max-version`, `ignore-versions`), since `heldSince`.
    public var heldVersion: String?
    public var heldBy: String?
    public var heldSince: String?
    /// `clear`, `affected` or `unknown`; nil when the app asks about no advisories.
    public var advisoryState: AdvisoryState?
    /// The last successful read of its advisories (RFC 3339).
    public var advisoriesChecked: String?
    /// The affecting advisories not ignored.
    public var advisories: [Advisory]?
    /// Affecting advisories past the ones listed, counted.
    public var advisoriesOmitted: Int?
    public var ignoredAdvisories: [String]?

    /// An advisory as `App.advisories` shows it.
    public struct Advisory: Sendable, Equatable, Codable {
        public var id: String
        public var aliases: [String]
        public var summary: String?
        public var severity: String?
        public var score: Double?
        public var fixed: String?
        public var url: String?

        public init(_ finding: AdvisoryFinding) {
            id = finding.id
            aliases = finding.aliases
            summary = finding.summary
            severity = finding.severity
            score = finding.score
            fixed = finding.fixed
            url = finding.url
        }
    }

    /// An app with what every status has; the daemon's report fills in the rest.
    public init(
        name: String, format: ResponseFormat, schedule: Schedule, status: UpdateStatus, nextCheckReason: NextCheckReason,
        consecutiveFailures: Int, stale: Bool
    ) {
        self.name = name
        self.format = format
        self.schedule = schedule
        self.status = status
        self.nextCheckReason = nextCheckReason
        self.consecutiveFailures = consecutiveFailures
        self.stale = stale
    }
}
