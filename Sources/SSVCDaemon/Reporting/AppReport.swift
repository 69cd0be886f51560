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

    var status: UpdateStatus { state.decision?.status ?? .unknown }
    var maskedURL: String { URLText.masked(app.url) }
    var stale: Bool { state.isStale(now: now, schedule: app.schedule, signature: app.signature) }

    /// `GetStatus`'s and Watch's view.
    var appStatus: AppStatus {
        AppStatus(
            name: app.name, format: app.format, url: maskedURL, schedule: app.schedule, proxy: app.proxyInUse(daemon),
            signature: app.signature, state: state, next: next, now: now
        )
    }

    /// The metrics file's view.
    var metrics: MetricsExposition.App {
        MetricsExposition.App(
            name: app.name, format: app.format.rawValue, schedule: app.schedule.rawValue, currentVersion: state.currentVersion,
            latestVersion: state.decision?.latestVersion, status: status, lastCheck: state.lastCheck, lastSuccess: state.lastSuccess,
            nextCheck: next.at, pendingVersion: state.pending?.version, offerAt: state.pending?.offerAt,
            consecutiveFailures: state.consecutiveFailures, stale: stale
        )
    }

    /// A hook's view: what changed from `previous`, or the notice shown.
    func hookEvent(_ kind: HookRunner.Event.Kind, previous: UpdateStatus, message: String? = nil) -> HookRunner.Event {
        HookRunner.Event(
            kind: kind, app: app.name, status: status, previousStatus: previous, currentVersion: state.currentVersion,
            latestVersion: state.decision?.latestVersion, url: maskedURL, message: message
        )
    }

    /// systemd's STATUS= line over every app: counts by status, then the
    /// phased and the failing.
    static func summary(_ reports: [AppReport]) -> String {
        var counts: [UpdateStatus: Int] = [:]
        var (failing, phased) = (0, 0)
        for report in reports {
            counts[report.status, default: 0] += 1
            if report.state.consecutiveFailures > 0 { failing += 1 }
            if report.state.pending != nil { phased += 1 }
        }
        var parts = UpdateStatus.allCases.compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
        if phased > 0 { parts.append("\(phased) phased") }
        if failing > 0 { parts.append("\(failing) failing") }
        return "\(reports.count) apps" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}
