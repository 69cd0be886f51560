import ArgumentParser
import SSVCDaemon
import SSVCPosix
import SSVCSystemd

/// The daemon's command line; everything else lives in `SSVCDaemon`.
@main
struct SSVCD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssvcd",
        abstract: "Checks version servers on a schedule; reports to the journal.",
        discussion: "SIGHUP reloads the configuration; SIGTERM stops after the state is written. Exit 78: bad configuration.",
        version: DaemonVersion.current
    )

    @Option(help: ArgumentHelp("Main configuration file (default: \(ConfigurationLoader.defaultMainFile), if present).", valueName: "path"))
    var config: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Directory of state.json (overrides the file).", valueName: "path"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("Path of the Varlink socket (overrides the file).", valueName: "path"))
    var socket: String?

    @Option(help: "Where events go: journal, stderr, or auto (the journal when reachable).")
    var logTarget: LogTarget = .auto

    @Flag(help: ArgumentHelp(
        "Check the configuration as a start would, print its apps and any warning, and exit: 0 when it would start, 78 when not.",
        discussion: "Touches neither the state nor the socket: run it before a restart (the package does on upgrade)."
    ))
    var checkConfig = false

    /// One file as the loader reads it, in toml-test's JSON form (tests).
    @Option(help: .hidden)
    var printToml: String?

    /// A service manager's command line starts the daemon at once
    /// (`StartArguments`); any other goes through ArgumentParser.
    static func main() {
        if let start = StartArguments.parse(CommandLine.arguments.dropFirst()) { start.start() }
        main(nil)
    }

    /// Synchronous, so that the daemon's executor is installed before any
    /// task starts; it never returns.
    func run() throws {
        // A parent's SIGCHLD ignored would lose every child's status
        // (version commands, hooks).
        ProcessLimits.resetInheritedSignals()
        if let printToml { throw ExitCode(ConfigurationLoader.printTOML(printToml)) }
        let start = StartArguments(config: config, stateDirectory: stateDirectory, socket: socket, logTarget: logTarget)
        if checkConfig {
            throw ExitCode(ConfigurationLoader.checkConfiguration(start.overrides, environment: ProcessEnvironment.variables()))
        }
        start.start()
    }
}
