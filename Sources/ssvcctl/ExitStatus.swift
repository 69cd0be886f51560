import ArgumentParser
import SSVCCore

/// The exit codes scripts and monitoring read.
enum ExitStatus {
    static let failure = ExitCode(1)
    static let updateAvailable = ExitCode(10)
    static let updateRequired = ExitCode(11)
    /// Bad arguments, as argument-parser's own errors.
    static let usage = ExitCode(64)

    /// The code for the worst of `statuses`: required over available over
    /// everything else, which exits 0.
    static func code(for statuses: [UpdateStatus]) -> ExitCode {
        if statuses.contains(.updateRequired) { return updateRequired }
        if statuses.contains(.updateAvailable) { return updateAvailable }
        return .success
    }
}
