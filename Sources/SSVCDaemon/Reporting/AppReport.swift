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
    /// An input requires the update: nothing keeps it back, so no version
    /// is shown as held or pending (the hold itself still shows).
    let requiredByInput: Bool
    /// The decision's notes, and what the limits and the inputs say beside it.
    let note: String?
    let maskedURL: String?
    /// The proxy the app's requests go through (password hidden); nil when direct.
    let proxy: String?
    /// Failed checks in a row, the app's or an input's (whichever is more).
    let consecutiveFailures: Int
    /// The last check's error, else an input's that failed.
    let lastError: String?

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
        let verdicts = app.inputs.isEmpty ? [] : AppInputs.all.compactMap { $0.verdict(app: app, state: state, now: now, restoring: restoring) }
        self.verdicts = verdicts
        let requirements = verdicts.compactMap { $0.requirement }
        let required = !requirements.isEmpty
        // An app without a version server is offered what an input offers.
        let offer = app.url == nil && !required ? verdicts.lazy.compactMap { $0.offer }.first : nil
        status = required ? .updateRequired : offer != nil && state.status == .upToDate ? .updateAvailable : state.status
        let shown = required ? state.documentDecision : state.decision
        // An app without a version server is required to reach the version itself.
        latestVersion = shown?.latestVersion ?? (required && app.url == nil ? requirements.lazy.compactMap(\.version).first : offer?.version)
        latestVersionNumber = shown?.latestVersionNumber
        stale = state.isStale(now: now, schedule: app.schedule, signature: app.signature)
        requiredByInput = required
        consecutiveFailures = verdicts.compactMap { $0.failure?.count }.reduce(state.consecutiveFailures) { max($0, $1) }
        lastError = state.lastError ?? verdicts.lazy.compactMap { $0.failure?.error }.first
        // What would have kept the version back is said not to defer it.
        let limits = app.limits(hold: state.hold)
        let undeferred: [String?] = required
            ? [state.held.map { "\(limits.named($0.by)) does not defer it" }, state.pending.map { _ in "the rollout does not defer it" }]
            : []
        // A hold below the running version keeps back nothing the machine has not passed already.
        var below: String?
        if let hold = state.hold, let current = state.currentVersion, (try? app.versionScheme.compare(hold.version, current)) == .older {
            below = "the hold at \(hold.version) is below the running version \(current)"
        }
        let notes = requirements.map(\.note) + [offer?.note].compactMap { $0 } + (undeferred + [below]).compactMap { $0 }
            + [state.decision?.note, state.decision.flatMap(limits.note)].compactMap { $0 } + verdicts.flatMap { $0.notes }
        note = notes.isEmpty ? nil : notes.joined(separator: "; ")
        // A report made to restore what was last told is never shown: the
        // URL and proxy, 8 µs an app, are left out of it.
        maskedURL = restoring ? nil : app.url.map(URLText.masked)
        proxy = restoring ? nil : app.proxyInUse(daemon)
        validUntil = Self.validity(app: app, state: state, now: now, inputs: verdicts.flatMap { $0.changesAt })
    }

    /// The phased or capped offer waiting, unless an input requires the update.
    var pending: PhasedOffer? { requiredByInput ? nil : state.pending }
    /// The version a limit keeps back, unless an input requires the update.
    var held: HeldBack? { requiredByInput ? nil : state.held }

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
            consecutiveFailures: consecutiveFailures, stale: stale
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
        status.lastError = lastError
        status.signedAt = state.signature?.signedAt.map(RFC3339.format)
        status.signatureKeyId = state.signature?.keyID
        status.note = note
        status.description = decision?.description
        status.hold = state.hold?.version
        status.holdSince = state.hold.map { RFC3339.format($0.since) }
        status.pendingVersion = pending?.version
        status.offerAt = pending?.dueAt.map(RFC3339.format)
        if let pending, let start = pending.windowStart, let end = pending.windowEnd {
            status.nextWindow = AppStatus.Window(start: RFC3339.format(start), end: RFC3339.format(end))
        }
        status.rolloutPercentage = pending?.cap
        status.offerAtPercentage = pending.flatMap { $0.capped ? $0.percentageNeeded : nil }
        status.heldVersion = held?.version
        status.heldBy = held?.by.rawValue
        status.heldSince = held.map { RFC3339.format($0.since) }
        for verdict in verdicts { verdict.show(in: &status) }
        return status
    }

    /// The metrics file's view.
    var metrics: MetricsExposition.App {
        var metrics = MetricsExposition.App(
            name: app.name, format: app.format.rawValue, schedule: app.schedule.rawValue, currentVersion: state.currentVersion,
            latestVersion: latestVersion, status: status, lastCheck: state.lastCheck, lastSuccess: state.lastSuccess,
            nextCheck: next.at, pendingVersion: pending?.version, offerAt: pending?.dueAt,
            held: held != nil, consecutiveFailures: consecutiveFailures, stale: stale
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
        /// The version waiting for an offer window, and that window's start.
        var windowWait: WindowWait?
        /// What each input's verdict said, by input.
        var said: [String: any Sendable]
    }

    var told: Told {
        var said: [String: any Sendable] = [:]
        for verdict in verdicts { if let value = verdict.saidValue { said[verdict.input] = value } }
        return Told(status: status, held: held, currentVersion: state.currentVersion, windowWait: windowWait, said: said)
    }

    struct WindowWait: Equatable {
        var version: String
        var start: Date
    }

    /// The pending version, when it waits for an offer window.
    var windowWait: WindowWait? {
        guard let pending, let start = pending.windowStart else { return nil }
        return WindowWait(version: pending.version, start: start)
    }

    /// What each input has to say that it did not say in `before`.
    func inputChanges(since before: Told) -> [InputChange] {
        verdicts.filter { $0.differs(from: before.said[$0.input]) }.map { $0.change(fromValue: before.said[$0.input], in: self) }
    }

    /// What systemd's STATUS= counts of this report.
    var tally: StatusTally.Entry {
        StatusTally.Entry(status: status, phased: pending != nil, held: held != nil, failing: consecutiveFailures > 0)
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
