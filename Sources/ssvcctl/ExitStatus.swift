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
    /// Bad arguments, as argument-parser's own errors.
    static let usage = ExitCode(64)

    /// The code for the worst of `statuses`: required over available over
    /// everything else, which exits 0.
    static func code(for statuses: [UpdateStatus]) -> ExitCode {
        if statuses.contains(.updateRequired) { return updateRequired }
        if statuses.contains(.updateAvailable) { return updateAvailable }
        return .success
    }

    /// The code for `apps` as the daemon reports them: 11 or 10 for what
    /// they decided, else 12 when any app's last check failed, else 0.
    static func code(for apps: [AppStatus]) -> ExitCode {
        let decided = code(for: apps.map(\.status))
        if decided != .success { return decided }
        return apps.contains { $0.consecutiveFailures > 0 } ? checksFailing : .success
    }
}
