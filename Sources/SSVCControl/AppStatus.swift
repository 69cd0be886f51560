import FoundationEssentials
import SSVCCore

/// One app as `GetStatus` and `ssvcctl status` show it: a plain value, as
/// the daemon's report of the app derived it.
package struct AppStatus: Sendable, Equatable, Codable {
    package var name: String
    package var format: ResponseFormat
    /// Nil for an app that asks only about advisories.
    package var url: String?
    package var schedule: Schedule
    /// The proxy its requests go through, password hidden; nil when direct.
    package var proxy: String?
    package var status: UpdateStatus
    package var currentVersion: String?
    package var currentVersionNumber: UInt64?
    package var latestVersion: String?
    package var latestVersionNumber: UInt64?
    package var minimumSupportedVersionNumber: UInt64?
    package var availableSince: String?
    package var lastCheck: String?
    package var lastSuccess: String?
    package var nextCheck: String?
    package var nextCheckReason: NextCheckReason
    package var consecutiveFailures: Int
    package var lastError: String?
    /// No success for two periods, or the stored response's signature is
    /// older than `max-signature-age-days`.
    package var stale: Bool
    /// The trusted comment's time of the stored response's signature.
    package var signedAt: String?
    /// The key that signed it, as minisign prints key ids.
    package var signatureKeyId: String?
    package var note: String?
    /// How the part of `note` begins that says a `Hold` or `Unhold` is in
    /// force but not on disk (a full disk refused it): `ssvcctl` warns of it.
    package static let notOnDisk = "not on disk"
    package var description: UpdateDescription?
    /// A newer version phased in later on this machine, and when (RFC 3339).
    package var pendingVersion: String?
    /// When the pending version is offered here, if time alone decides it;
    /// nil while the server's cap holds it.
    package var offerAt: String?
    /// The offer window the pending version waits for (SPEC §16).
    package var nextWindow: Window?
    /// The server's cap on the pending version's rollout, 0–100; nil: none.
    package var rolloutPercentage: Double?
    /// The share of the rollout this machine waits for (its position ×
    /// 100): the cap must rise above it. Set while the cap holds the offer.
    package var offerAtPercentage: Double?
    /// `ssvcctl hold`: the version held at, and since when (RFC 3339).
    package var hold: String?
    package var holdSince: String?
    /// A newer version kept back on this machine, by `heldBy` (`hold`,
    /// `max-version`, `ignore-versions`), since `heldSince`.
    package var heldVersion: String?
    package var heldBy: String?
    package var heldSince: String?
    /// `clear`, `affected` or `unknown`; nil when the app asks about no advisories.
    package var advisoryState: AdvisoryState?
    /// The last successful read of its advisories (RFC 3339).
    package var advisoriesChecked: String?
    /// The affecting advisories not ignored.
    package var advisories: [Advisory]?
    /// Affecting advisories past the ones listed, counted.
    package var advisoriesOmitted: Int?
    package var ignoredAdvisories: [String]?
    /// `supported`, `security-only`, `ending`, `end-of-life` or `unknown`;
    /// nil when the app asks about no end of life (SPEC §15).
    package var lifecycle: LifecycleState?
    /// The last successful read of its end-of-life data (RFC 3339).
    package var lifecycleChecked: String?
    /// The release line the running version belongs to, and its dates
    /// (`YYYY-MM-DD`): end of active support, end of life, and the end of
    /// extended support while it lasts past the end of life.
    package var lifecycleRelease: String?
    package var supportEnds: String?
    package var endOfLife: String?
    package var extendedUntil: String?
    /// The newest version of that release line.
    package var latestInRelease: String?
    /// The installed version differs from the running one (SPEC §15).
    package var restartPending: RestartPending?

    /// An advisory as `App.advisories` shows it.
    package struct Advisory: Sendable, Equatable, Codable {
        package var id: String
        package var aliases: [String]
        package var summary: String?
        package var severity: String?
        package var score: Double?
        package var fixed: String?
        package var url: String?

        package init(_ finding: AdvisoryFinding) {
            id = finding.id
            aliases = finding.aliases
            summary = finding.summary
            severity = finding.severity
            score = finding.score
            fixed = finding.fixed
            url = finding.url
        }
    }

    /// An offer window: its first instant and the first after it (RFC 3339).
    package struct Window: Sendable, Equatable, Codable {
        package var start: String
        package var end: String

        package init(start: String, end: String) {
            self.start = start
            self.end = end
        }
    }

    /// A restart that would run the installed version: since when (RFC
    /// 3339); `overdue` past `restart-pending-critical-days`.
    package struct RestartPending: Sendable, Equatable, Codable {
        package var installed: String
        package var running: String
        package var since: String
        package var overdue: Bool

        package init(installed: String, running: String, since: String, overdue: Bool) {
            self.installed = installed
            self.running = running
            self.since = since
            self.overdue = overdue
        }
    }

    /// An app with what every status has; the daemon's report fills in the rest.
    package init(
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
