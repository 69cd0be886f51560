import FoundationEssentials
import SSVCControl
import SSVCCore

/// One app as it stands at one instant: its configuration, its state and
/// its plan, and every value derived from them, each computed once, here.
/// Every output the daemon gives about an app (a `GetStatus` reply, a
/// Watch event, a metrics series, a hook's variables, a journal entry's
/// fields, STATUS=) reads these values, so that they cannot disagree; a
/// change is told by comparing the report before it with the report after.
///
/// A class, though it never changes: the service keeps one per app, and a
/// dictionary of 1,700-byte values took 3.5 MB of buckets for 1,000 apps
/// (`make bench`'s idle RSS with 1,000 apps, 11.0 → 14.4 MiB).
final class AppReport: Sendable {
    let app: AppConfiguration
    let state: AppState
    let next: NextCheck
    let now: Date

    /// What each input the app uses says, in `AppInputs.all`'s order.
    let verdicts: [any InputVerdict]
    /// The decision's status, unless an input requires the update: then
    /// `update-required`, never phased, held or capped (SPEC §13).
    let status: UpdateStatus
    /// The latest version shown: the decision's, or, when an input makes
    /// the update required, the newest the document names (which a hold, a
    /// phase or a cap keeps out of the decision).
    let latestVersion: String?
    let latestVersionNumber: UInt64?
    let stale: Bool
    /// The decision's notes, and what the limits and the inputs say beside it.
    let note: String?
    let maskedURL: String?
    /// The proxy the app's requests go through (password hidden); nil when direct.
    let proxy: String?
    /// The first instant after `now` at which a value above may change
    /// with time alone (staleness, a signature's age, what an input says
    /// of its data's age): the report is derived again from then on.
    let validUntil: Date

    /// A report is derived again at least this often, whatever its inputs say.
    static let longestValidity: TimeInterval = 3_600

    init(app: AppConfiguration, state: AppState, next: NextCheck, now: Date, daemon: DaemonSettings, restoring: Bool = false) {
        self.app = app
        self.state = state
        self.next = next
        self.now = now
        let verdicts = AppInputs.all.compactMap { $0.verdict(app: app, state: state, now: now, restoring: restoring) }
        self.verdicts = verdicts
        let requirements = verdicts.compactMap { $0.requirement }
        let required = !requirements.isEmpty
        status = required ? .updateRequired : state.status
        let shown = required ? state.documentDecision : state.decision
        // An app without a version server is required to reach the version itself.
        latestVersion = shown?.latestVersion ?? (required && app.url == nil ? requirements.lazy.compactMap(\.version).first : nil)
        latestVersionNumber = shown?.latestVersionNumber
        stale = state.isStale(now: now, schedule: app.schedule, signature: app.signature)
        let notes = requirements.map(\.note) + [state.decision?.note, state.decision.flatMap(app.limits(hold: state.hold).note)].compactMap { $0 }
            + verdicts.flatMap { $0.notes }
        note = notes.isEmpty ? nil : notes.joined(separator: "; ")
        maskedURL = app.url.map(URLText.masked)
        proxy = app.proxyInUse(daemon)
        validUntil = Self.validity(app: app, state: state, now: now, inputs: verdicts.flatMap { $0.changesAt })
    }

    /// Whether the report still holds at `now`.
    func holds(at now: Date) -> Bool { now >= self.now && now < validUntil }

    /// The first instant after `now` at which staleness or an input's
    /// verdict may change with no change to the state.
    private static func validity(app: AppConfiguration, state: AppState, now: Date, inputs: [Date]) -> Date {
        let longest = now.addingTimeInterval(longestValidity)
        var boundaries = [longest] + inputs
        if let period = app.schedule.period(at: now), let since = state.lastSuccess ?? state.firstCheck ?? state.lastCheck {
            boundaries.append(since.addingTimeInterval(2 * period))
        }
        if let maxAgeDays = app.signature?.maxAgeDays, let signedAt = state.signature?.signedAt {
            boundaries.append(signedAt.addingTimeInterval(Double(maxAgeDays) * 86_400))
        }
        // Past the boundary itself: `isStale` and the age limits compare with `>`.
        return (boundaries.filter { $0 > now }.min() ?? longest).addingTimeInterval(0.001)
    }

    /// `GetStatus`'s and Watch's view.
    var appStatus: AppStatus {
        let decision = state.decision
        var status = AppStatus(
            name: app.name, format: app.format, schedule: app.schedule, status: status, nextCheckReason: next.reason,
            consecutiveFailures: state.consecutiveFailures, stale: stale
        )
        status.url = maskedURL
        status.proxy = proxy
        status.currentVersion = state.currentVersion
        status.currentVersionNumber = state.currentVersionNumber
        status.latestVersion = latestVersion
        status.latestVersionNumber = latestVersionNumber
        status.minimumSupportedVersionNumber = decision?.minimumSupportedVersionNumber
        status.availableSince = decision?.availableSince.map(RFC3339.format)
        status.lastCheck = state.lastCheck.map(RFC3339.format)
        status.lastSuccess = state.lastSuccess.map(RFC3339.format)
        status.nextCheck = next.at.map(RFC3339.format)
        status.lastError = state.lastError
        status.signedAt = state.signature?.signedAt.map(RFC3339.format)
        status.signatureKeyId = state.signature?.keyID
        status.note = note
        status.description = decision?.description
        status.pendingVersion = state.pending?.version
        status.offerAt = state.pending?.dueAt.map(RFC3339.format)
        status.rolloutPercentage = state.pending?.cap
        status.offerAtPercentage = state.pending.flatMap { $0.capped ? $0.percentageNeeded : nil }
        status.hold = state.hold?.version
        status.holdSince = state.hold.map { RFC3339.format($0.since) }
        status.heldVersion = state.held?.version
        status.heldBy = state.held?.by.rawValue
        status.heldSince = state.held.map { RFC3339.format($0.since) }
        for verdict in verdicts { verdict.show(in: &status) }
        return status
    }

    /// The metrics file's view.
    var metrics: MetricsExposition.App {
        var metrics = MetricsExposition.App(
            name: app.name, format: app.format.rawValue, schedule: app.schedule.rawValue, currentVersion: state.currentVersion,
            latestVersion: latestVersion, status: status, lastCheck: state.lastCheck, lastSuccess: state.lastSuccess,
            nextCheck: next.at, pendingVersion: state.pending?.version, offerAt: state.pending?.dueAt,
            held: state.held != nil, consecutiveFailures: state.consecutiveFailures, stale: stale
        )
        for verdict in verdicts { metrics.inputs[verdict.input] = verdict.metrics }
        return metrics
    }

    /// A hook's view: what changed from `previous`, or the notice shown.
    func hookEvent(_ kind: HookRunner.Event.Kind, previous: UpdateStatus, message: String? = nil) -> HookRunner.Event {
        var event = HookRunner.Event(
            kind: kind, app: app.name, status: status, previousStatus: previous, currentVersion: state.currentVersion,
            latestVersion: latestVersion, url: maskedURL ?? "", message: message
        )
        for verdict in verdicts { event.inputVariables.merge(verdict.hookVariables) { _, new in new } }
        return event
    }

    /// What the outputs were told of an app, kept until its next change to
    /// judge what changed: the values its hooks, events and entries speak of.
    struct Told {
        var status: UpdateStatus
        var held: HeldBack?
        var currentVersion: String?
        /// What each input's verdict said, by input.
        var said: [String: any Sendable]
    }

    var told: Told {
        var said: [String: any Sendable] = [:]
        for verdict in verdicts { if let value = verdict.saidValue { said[verdict.input] = value } }
        return Told(status: status, held: state.held, currentVersion: state.currentVersion, said: said)
    }

    /// What each input has to say that it did not say in `before`.
    func inputChanges(since before: Told) -> [InputChange] {
        verdicts.filter { $0.differs(from: before.said[$0.input]) }.map { $0.change(fromValue: before.said[$0.input], in: self) }
    }

    /// What systemd's STATUS= counts of this report.
    var tally: StatusTally.Entry {
        StatusTally.Entry(status: status, phased: state.pending != nil, held: state.held != nil, failing: state.consecutiveFailures > 0)
    }
}

/// systemd's STATUS= line: the apps counted by their reports' status, then
/// the phased, the held and the failing. Kept up to date one app at a time
/// as its report changes, never rebuilt from a thousand reports per check.
struct StatusTally {
    struct Entry: Equatable {
        var status: UpdateStatus
        var phased: Bool
        var held: Bool
        var failing: Bool
    }

    private var entries: [String: Entry] = [:]
    private var counts: [UpdateStatus: Int] = [:]
    private var (phased, held, failing) = (0, 0, 0)

    /// Counts `entry` for `app`, in place of what was counted for it; nil
    /// counts it no more.
    mutating func set(_ app: String, _ entry: Entry?) {
        if let old = entries.removeValue(forKey: app) { add(old, -1) }
        if let entry {
            entries[app] = entry
            add(entry, 1)
        }
    }

    private mutating func add(_ entry: Entry, _ step: Int) {
        counts[entry.status, default: 0] += step
        if entry.phased { phased += step }
        if entry.held { held += step }
        if entry.failing { failing += step }
    }

    var line: String {
        var parts = UpdateStatus.allCases.compactMap { status in counts[status].flatMap { $0 > 0 ? "\($0) \(status.rawValue)" : nil } }
        if phased > 0 { parts.append("\(phased) phased") }
        if held > 0 { parts.append("\(held) held") }
        if failing > 0 { parts.append("\(failing) failing") }
        return "\(entries.count) apps" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}
