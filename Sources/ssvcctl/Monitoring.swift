import ArgumentParser
import FoundationEssentials
import SSVCControl
import SSVCCore

/// The daemon's status as monitoring reads it: the Monitoring Plugins
/// format (Nagios, Icinga) and the login banner.
enum Monitoring {
    /// `GetStatus` of one app or all, or why it could not be had, in words.
    static func status(socket: String, app: String?, timeout: Int) -> Result<[AppStatus], Unreachable> {
        do {
            let client = try VarlinkClient(path: socket, replyTimeout: timeout)
            let reply = try client.call(.getStatus, parameters: app.map { ["app": $0] } ?? [:])
            return .success(try JSONDecoder().decode(AppList.self, from: Data(reply)).apps)
        } catch let error as VarlinkClient.Failure {
            return .failure(Unreachable(description: explain(error), noSuchApp: error.remoteName == .noSuchApp))
        } catch {
            return .failure(Unreachable(description: "the daemon sent an unexpected reply: \(error)", noSuchApp: false))
        }
    }

    struct Unreachable: Error {
        let description: String
        let noSuchApp: Bool
    }

    /// One plugin line and its exit code: 0 OK, 1 WARNING (an update
    /// available, a check failing, support ending or security-only, a
    /// restart pending), 2 CRITICAL (an update required, end of life, a
    /// restart pending past restart-pending-critical-days, or no success
    /// for two periods), 3 UNKNOWN (no answer, no such app).
    static func plugin(_ result: Result<[AppStatus], Unreachable>) -> (line: String, code: Int32) {
        let apps: [AppStatus]
        switch result {
        case let .failure(problem):
            return ("SSVC UNKNOWN - \(problem.noSuchApp ? problem.description : "cannot ask ssvcd: \(problem.description)")", 3)
        case let .success(list):
            // A server's text may carry neither a '|' (which would start
            // forged performance data) nor a line break into the plugin line.
            apps = list.map(\.shownToPeople).map { app in
                var app = app
                app.currentVersion = app.currentVersion.map(Self.withoutPipes)
                app.latestVersion = app.latestVersion.map(Self.withoutPipes)
                return app
            }
        }
        let required = apps.filter { $0.status == .updateRequired }
        let stale = apps.filter(\.stale)
        let available = apps.filter { $0.status == .updateAvailable }
        let failing = apps.filter { $0.consecutiveFailures > 0 }
        let vulnerable = apps.filter(\.affectedByAdvisories)
        let unknownAdvisories = apps.filter { $0.advisoryState == .unknown }
        let endOfLife = apps.filter { $0.lifecycle == .endOfLife }
        let ending = apps.filter { $0.lifecycle == .ending }
        let securityOnly = apps.filter { $0.lifecycle == .securityOnly }
        let overdue = apps.filter { $0.restartPending?.overdue == true }
        let restart = apps.filter { $0.restartPending != nil && $0.restartPending?.overdue != true }
        var counts: [(String, Int)] = [("apps", apps.count), ("update_available", available.count), ("update_required", required.count),
                                       ("stale", stale.count), ("failing", failing.count)]
        // Apps that ask about advisories add their count.
        if apps.contains(where: { $0.advisoryState != nil }) { counts.append(("affected", vulnerable.count)) }
        if apps.contains(where: { $0.lifecycle != nil }) { counts.append(("end_of_life", endOfLife.count)) }
        if apps.contains(where: { $0.restartPending != nil }) { counts.append(("restart_pending", restart.count + overdue.count)) }
        let data = counts.map { "'\($0.0)'=\($0.1);;;0;" }.joined(separator: " ")
        func named(_ apps: [AppStatus], versions: Bool) -> String {
            apps.map { versions ? "\($0.name) (\(AppTable.versions($0)))" : $0.name }.joined(separator: ", ")
        }
        // A version waiting for its offer window is said at every level.
        let waiting = apps.compactMap { app in
            app.pendingVersion.flatMap { version in
                app.nextWindow.map { "\(app.name) \(withoutPipes(version)) (from \($0.start))" }
            }
        }
        let waits = waiting.isEmpty ? "" : "; waiting for an offer window: " + waiting.joined(separator: ", ")
        var problems: [String] = []
        if !required.isEmpty { problems.append("update required: \(named(required, versions: true))") }
        if !vulnerable.isEmpty {
            problems.append("affected by advisories: " + vulnerable.map { app in
                "\(app.name) (" + (app.advisories ?? []).prefix(3).map(\.id).joined(separator: ", ")
                    + ((app.advisories ?? []).count > 3 ? ", ..." : "") + ")"
            }.joined(separator: ", "))
        }
        if !endOfLife.isEmpty { problems.append("end of life: " + endOfLife.map(Self.lifecycle).joined(separator: ", ")) }
        if !overdue.isEmpty { problems.append("restart pending too long: " + overdue.map(Self.restart).joined(separator: ", ")) }
        if !stale.isEmpty { problems.append("no success for two periods: \(named(stale, versions: false))") }
        if !problems.isEmpty { return ("SSVC CRITICAL - \(problems.joined(separator: "; "))\(waits) | \(data)", 2) }
        var warnings: [String] = []
        if !available.isEmpty { warnings.append("update available: \(named(available, versions: true))") }
        // A failing check never reads as OK, and the line claims a kept
        // answer only where one exists.
        if !failing.isEmpty { warnings.append("checks failing: " + failing.map(Self.failure).joined(separator: ", ")) }
        // Advisories not known are never quiet (SPEC §13).
        if !unknownAdvisories.isEmpty { warnings.append("advisories unknown: " + named(unknownAdvisories, versions: false)) }
        if !ending.isEmpty { warnings.append("support ending: " + ending.map(Self.lifecycle).joined(separator: ", ")) }
        if !securityOnly.isEmpty { warnings.append("security support only: " + securityOnly.map(Self.lifecycle).joined(separator: ", ")) }
        if !restart.isEmpty { warnings.append("restart pending: " + restart.map(Self.restart).joined(separator: ", ")) }
        if !warnings.isEmpty { return ("SSVC WARNING - \(warnings.joined(separator: "; "))\(waits) | \(data)", 1) }
        let summary = apps.count == 1 ? "\(apps[0].name) \(apps[0].status.rawValue) (\(AppTable.versions(apps[0])))" : "\(apps.count) apps up to date"
        return ("SSVC OK - \(summary)\(waits) | \(data)", 0)
    }

    /// "billing (3 in a row, no good answer yet)", or "…, last good answer
    /// 2026-11-24T10:00:00Z kept)".
    static func failure(_ app: AppStatus) -> String {
        let kept = app.lastSuccess.map { "last good answer \($0) kept" } ?? "no good answer yet"
        return "\(app.name) (\(app.consecutiveFailures) in a row, \(kept))"
    }

    /// "go (release 1.23, end of life 2025-08-12)", "ubuntu (release 22.04, security only, end of life 2027-04-01)".
    static func lifecycle(_ app: AppStatus) -> String {
        var parts: [String] = []
        if let release = app.lifecycleRelease { parts.append("release \(withoutPipes(release))") }
        if let eol = app.endOfLife { parts.append("end of life \(eol)") }
        return parts.isEmpty ? app.name : "\(app.name) (\(parts.joined(separator: ", ")))"
    }

    /// "nginx (1.26.1 installed, 1.24.0 running since 2026-11-20T10:00:00Z)".
    static func restart(_ app: AppStatus) -> String {
        guard let pending = app.restartPending else { return app.name }
        return "\(app.name) (\(withoutPipes(pending.installed)) installed, \(withoutPipes(pending.running)) running, since \(pending.since))"
    }

    /// `|` written as `\x7c`: the plugin format's separator of performance data.
    static func withoutPipes(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\x7c")
    }

    /// At most this many apps in the banner; the rest are counted.
    static let bannerLimit = 10

    /// A few lines about the apps that need attention; empty when all is well.
    static func banner(_ apps: [AppStatus]) -> String {
        var lines: [String] = []
        for app in apps.map(\.shownToPeople) {
            var notes: [String] = []
            switch app.status {
            case .updateRequired: notes.append("update required: \(AppTable.versions(app))")
            case .updateAvailable: notes.append("update available: \(AppTable.versions(app))")
            case .upToDate, .ahead, .unknown: break
            }
            if let held = AppTable.held(app), app.heldVersion != nil || app.status == .updateRequired { notes.append(held) }
            if app.advisoryState == .unknown { notes.append("advisories unknown (not read lately, or not all evaluated)") }
            if app.affectedByAdvisories {
                let count = (app.advisories ?? []).count + (app.advisoriesOmitted ?? 0)
                let ids = (app.advisories ?? []).prefix(3).map(\.id).joined(separator: ", ")
                notes.append("affected by \(ids)" + (count > 3 ? " and \(count - 3) more" : ""))
            }
            switch app.lifecycle {
            case .endOfLife?: notes.append("past its end of life" + (app.endOfLife.map { " (\($0))" } ?? ""))
            case .ending?: notes.append("end of life on \(app.endOfLife ?? "?")")
            case .securityOnly?, .supported?, .unknown?, nil: break
            }
            if let pending = app.restartPending { notes.append("restart pending (\(pending.installed) installed)") }
            if let version = app.pendingVersion, let wait = AppTable.windowWait(app) { notes.append("\(version) \(wait)") }
            if app.consecutiveFailures > 0 { notes.append("checks failing (\(app.consecutiveFailures) in a row)") }
            if app.stale { notes.append("information may be outdated") }
            if !notes.isEmpty { lines.append("  \(app.name): \(notes.joined(separator: "; "))") }
        }
        guard !lines.isEmpty else { return "" }
        let shown = lines.prefix(bannerLimit)
        let more = lines.count > bannerLimit ? ["  ... and \(lines.count - bannerLimit) more"] : []
        return (["ssvc: version checks that need attention (ssvcctl status for details):"] + shown + more).joined(separator: "\n")
    }
}

struct Motd: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the apps that need attention, for the login banner.",
        discussion: """
            Prints nothing when all is well, when the daemon does not answer within a second, \
            or on any error; always exits 0, so that it never fails a login. \
            /etc/update-motd.d/85-ssvc runs it.
            """
    )

    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "path"))
    var socket = "/run/ssvc/io.ssvc.Daemon"

    @Option(help: ArgumentHelp("Print nothing when the daemon has not answered after this many seconds, at most 5.", valueName: "seconds"))
    var timeout = 1

    func run() {
        guard case let .success(apps) = Monitoring.status(socket: socket, app: nil, timeout: min(max(timeout, 1), 5)) else { return }
        let text = Monitoring.banner(apps)
        if !text.isEmpty { print(text) }
    }
}
