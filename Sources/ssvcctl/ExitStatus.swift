import ArgumentParser
import SSVCControl
import SSVCCore

/// The exit codes scripts and monitoring read.
enum ExitStatus {
    static let failure = ExitCode(1)
    static let updateAvailable = ExitCode(10)
    static let updateRequired = ExitCode(11)
    /// No update to report, but an app's last check failed (its server is
    /// gone, its document rejected): never "up to date" to a monitor.
    static let checksFailing = ExitCode(12)
    /// An app's running version is affected by an advisory whose fix is
    /// not offered (an offered fix makes the update required: 11).
    static let affected = ExitCode(13)
    /// Bad arguments, as argument-parser's own errors.
    static let usage = ExitCode(64)

    /// The code for the worst of `statuses`: required over available over
    /// everything else, which exits 0.
    static func code(for statuses: [UpdateStatus]) -> ExitCode {
        if statuses.contains(.updateRequired) { return updateRequired }
        if statuses.contains(.updateAvailable) { return updateAvailable }
        return .success
    }

    /// The code for `apps` as the daemon reports them. Each app has one:
    /// 11 required (an advisory's fix offered too), 13 affected by an
    /// advisory with no fix offered, 10 available (its last good answer,
    /// even while a check fails), 12 no update but a check failing or its
    /// advisories unknown, else 0. Over several apps the worst, in the order 11, 13, 12, 10, 0
    /// (SPEC §13): one app's failing check outranks another's update.
    static func code(for apps: [AppStatus]) -> ExitCode {
        let ranked = [updateRequired, affected, checksFailing, updateAvailable]
        let codes = apps.map { app -> ExitCode in
            if app.status == .updateRequired { return updateRequired }
            if app.affectedByAdvisories { return affected }
            if app.status == .updateAvailable { return updateAvailable }
            // Advisories unknown (never read, stale, undecided) are never quiet (SPEC §13).
            return app.consecutiveFailures > 0 || app.advisoryState == .unknown ? checksFailing : .success
        }
        return ranked.first { codes.contains($0) } ?? .success
    }
}

extension AppStatus {
    /// Affected by an advisory: fresh findings, or stale ones, which keep
    /// deciding while the state says unknown (SPEC §13). Exit codes, Nagios
    /// and the banner read this one rule.
    var affectedByAdvisories: Bool {
        advisoryState == .affected || (advisoryState == .unknown && !(advisories ?? []).isEmpty)
    }
}
