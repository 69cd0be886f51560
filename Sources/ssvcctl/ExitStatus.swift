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

    /// The release line the app runs is past its end of life (SPEC §15).
    static let endOfLife = ExitCode(14)
    /// The installed version differs from the running one: a restart is pending.
    static let restartPending = ExitCode(15)

    /// The codes from worst to mildest (SPEC §15): one app's failing check
    /// outranks another's update.
    static let ranked = [updateRequired, affected, endOfLife, checksFailing, restartPending, updateAvailable]

    /// The code for `apps` as the daemon reports them, the worst of each
    /// app's: 11 required (an advisory's fix offered too), 13 affected by
    /// an advisory with no fix offered, 14 past its end of life, 10
    /// available (its last good answer, even while a check fails), 12 no
    /// update but a check failing or its advisories unknown, 15 a restart
    /// pending, else 0; over several apps the worst, in the order 11, 13,
    /// 14, 12, 15, 10, 0.
    static func code(for apps: [AppStatus]) -> ExitCode {
        let codes = apps.flatMap { app -> [ExitCode] in
            var codes: [ExitCode] = []
            if app.status == .updateRequired { codes.append(updateRequired) }
            if app.affectedByAdvisories { codes.append(affected) }
            if app.lifecycle == .endOfLife { codes.append(endOfLife) }
            if app.status == .updateAvailable {
                codes.append(updateAvailable)
            } else if app.consecutiveFailures > 0 || app.advisoryState == .unknown {
                // Advisories unknown (never read, stale, undecided) are never quiet (SPEC §13).
                codes.append(checksFailing)
            }
            if app.restartPending != nil { codes.append(restartPending) }
            return codes
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
