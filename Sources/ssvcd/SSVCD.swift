import ArgumentParser
import SSVCDaemon

/// The daemon's command line. The daemon itself arrives with issue 4; until
/// then `ssvcd` says so plainly instead of pretending to run.
@main
struct SSVCD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssvcd",
        abstract: "Checks version servers on a schedule and answers on a Varlink socket.",
        version: DaemonVersion.current
    )

    @Option(help: "Main configuration file.")
    var config = "/etc/ssvc/ssvcd.toml"

    @Option(name: .customLong("state-dir"), help: "Directory of state.json.")
    var stateDirectory: String?

    @Option(help: "Path of the Varlink socket.")
    var socket: String?

    func run() throws {
        StandardError.writeLine("ssvcd: the daemon is not available in this build yet; use 'ssvcctl evaluate'")
        throw ExitCode(69)  // EX_UNAVAILABLE
    }
}
