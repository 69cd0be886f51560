import FoundationEssentials
import SSVCControl
import SSVCCore

/// One app as it stands at one instant: its configuration, its state and
/// its plan. Every output the daemon gives about an app (a `GetStatus`
/// reply, a Watch event, a metrics series, a hook's variables, a journal
/// entry's fields, STATUS=) is derived from this one value, so that they
/// cannot disagree.
struct AppReport {
    let app: AppConfiguration
    let state: AppState
    let next: NextCheck
    let now: Date
    /// The daemon's settings, for the proxy the app's requests go through.
    let daemon: DaemonSettings

    /// The decision's status, unless an advisory's fix is offered: then `update-required`.
    var status: UpdateStatus { advisories?.requiredBy != nil ? .updateRequired : state.status }
    var maskedURL: String? { app.url.map(URLText.masked) }

    /// The app's advisories as they stand now; nil when it asks about none.
    var advisories: AdvisoryVerdict? {
        app.advisories.map { settings in
            AdvisoryVerdict(
                data: state.advisories, settings: settings, latest: state.documentLatest, hasServer: app.url != nil,
                scheme: app.versionScheme, now: now
            )
        }
    }
    var stale: Bool { state.isStale(now: now, schedule: app.schedule, signature: app.signature) }

    /// The decision's notes, and what the limits say beside it (a
    /// required update shown through a hold).
    var note: String? {
        let notes = [
            advisories?.requiredNote, state.decision?.note, state.decision.flatMap(app.limits(hold: state.hold).note),
        ].compactMap { $0 } + (state.advisories?.notes ?? [])
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// `GetStatus`'s and Watch's view.
    var appStatus: AppStatus {
        var status = AppStatus(
            name: app.name, format: app.format, url: maskedURL, schedule: app.schedule, proxy: app.proxyInUse(daemon),
            signature: app.signature, state: state, next: next, now: now
        )
        status.status = self.status
        status.note = note
        if let advisories { status.show(advisories, data: state.advisories) }
        return status
    }

    /// The metrics file's view.
    var metrics: MetricsExposition.App {
        var metrics = MetricsExposition.App(
            name: app.name, format: app.format.rawValue, schedule: app.schedule.rawValue, currentVersion: state.currentVersion,
            latestVersion: state.decision?.latestVersion, status: status, lastCheck: state.lastCheck, lastSuccess: state.lastSuccess,
            nextCheck: next.at, pendingVersion: state.pending?.version, offerAt: state.pending?.dueAt,
            held: state.held != nil, consecutiveFailures: state.consecutiveFailures, stale: stale
        )
        if let advisories {
            metrics.advisoryState = advisories.state
            metrics.advisories = advisories.advisories.map { ($0.id, $0.fixed, $0.severity) }
            metrics.advisoryCount = advisories.count
        }
        return metrics
    }

    /// A hook's view: what changed from `previous`, or the notice shown.
    func hookEvent(_ kind: HookRunner.Event.Kind, previous: UpdateStatus, message: String? = nil) -> HookRunner.Event {
        var event = HookRunner.Event(
            kind: kind, app: app.name, status: status, previousStatus: previous, currentVersion: state.currentVersion,
            latestVersion: state.decision?.latestVersion, url: maskedURL ?? "", message: message
        )
        if let advisories {
            event.advisoryState = advisories.state
            event.advisories = advisories.advisories.map(\.id)
        }
        return event
    }

    /// systemd's STATUS= line over every app's state: counts by status,
    /// then the phased, the held and the failing. It reads only what a report's
    /// `status` and `state` give, without building a thousand reports for
    /// each check.
    static func summary(_ states: some Collection<AppState>) -> String {
        var counts: [UpdateStatus: Int] = [:]
        var (failing, phased, held) = (0, 0, 0)
        for state in states {
            counts[state.status, default: 0] += 1
            if state.consecutiveFailures > 0 { failing += 1 }
            if state.pending != nil { phased += 1 }
            if state.held != nil { held += 1 }
        }
        var parts = UpdateStatus.allCases.compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
        if phased > 0 { parts.append("\(phased) phased") }
        if held > 0 { parts.append("\(held) held") }
        if failing > 0 { parts.append("\(failing) failing") }
        return "\(states.count) apps" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}
