@preconcurrency import Glibc
import ArgumentParser
import FoundationEssentials
import SSVCControl
import SSVCCore
import SSVCPosix

/// Where the daemon listens; given before or after the subcommand.
struct SocketOption: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "path"))
    var socket = "/run/ssvc/io.ssvc.Daemon"

    /// A connection that waits for ever for its replies (`watch`).
    func connect(replyTimeout: Int? = nil) throws -> VarlinkClient {
        do {
            return try VarlinkClient(path: socket, replyTimeout: replyTimeout)
        } catch {
            StandardError.writeLine("ssvcctl: \(error)")
            throw ExitStatus.failure
        }
    }
}

/// The socket and how long to wait for the answer.
struct ClientOptions: ParsableArguments {
    @OptionGroup var target: SocketOption

    @Option(help: ArgumentHelp(
        "Give up when the daemon has not answered after this many seconds (default: 10 for status, 300 for check, 60 for reload).",
        valueName: "seconds"
    ))
    var timeout: Int?

    var socket: String { target.socket }

    func validate() throws {
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive") }
    }

    /// `defaultTimeout` when --timeout is not given: `check` waits for the
    /// daemon's fetches, `status` for a cached answer.
    func connect(defaultTimeout: Int) throws -> VarlinkClient {
        try target.connect(replyTimeout: timeout ?? defaultTimeout)
    }
}

/// Makes a call, turning the daemon's errors into one line and exit 1;
/// errors `silent` holds for exit 1 without the line.
func request(
    _ client: VarlinkClient, _ method: ControlMethod, app: String? = nil, more: Bool = false,
    silent: (VarlinkClient.Failure) -> Bool = { _ in false }
) throws -> [UInt8] {
    try request(client, method, parameters: app.map { ["app": $0] } ?? [:], more: more, silent: silent)
}

/// `request` with any string parameters.
func request(
    _ client: VarlinkClient, _ method: ControlMethod, parameters: [String: String], more: Bool = false,
    silent: (VarlinkClient.Failure) -> Bool = { _ in false }
) throws -> [UInt8] {
    do {
        return try client.call(method, parameters: parameters, more: more)
    } catch {
        // The daemon's reasons quote configuration text: escaped, as everything shown.
        if !silent(error) { StandardError.writeEscapedLine("ssvcctl: \(explain(error))") }
        throw ExitStatus.failure
    }
}

func explain(_ error: VarlinkClient.Failure) -> String {
    guard case let .remote(name, parameters) = error else { return error.description }
    switch error.remoteName {
    case .noSuchApp:
        return "no such app: \((try? parameters.member("app")?.string()) ?? "")"
    case .permissionDenied:
        return "permission denied: check, reload, hold and unhold need root, the daemon's own user, or membership of its control-group"
    case .invalidConfiguration:
        return "the new configuration is invalid; the running one stays: \((try? parameters.member("reason")?.string()) ?? "")"
    case .cannotHold:
        return "cannot hold: \((try? parameters.member("reason")?.string()) ?? "")"
    case .tooManyConnections:
        return "the daemon refused the connection: this user (or everyone together) holds as many control connections as it serves"
    default:
        return "the daemon answered \(name)"
    }
}

/// The reply of `GetStatus` and `Check`.
struct AppList: Decodable {
    let apps: [AppStatus]
}

func decodeApps(_ bytes: [UInt8]) throws -> [AppStatus] {
    do {
        return try JSONDecoder().decode(AppList.self, from: Data(bytes)).apps
    } catch {
        StandardError.writeLine("ssvcctl: the daemon sent an unexpected reply: \(error)")
        throw ExitStatus.failure
    }
}

/// Prints apps as a table or JSON and exits with the worst status's code.
func show(_ apps: [AppStatus], json: Bool) throws -> Never {
    if json {
        print(ConsoleJSON.text(["apps": apps]))
    } else {
        print(AppTable.render(apps))
    }
    throw ExitStatus.code(for: apps)
}

/// What `status` and `check` take: the daemon, the apps (all when none
/// is named), the form.
struct AppsOptions: ParsableArguments {
    @OptionGroup var client: ClientOptions
    @Argument(help: "Only these apps.", completion: .custom { AppNames.complete($0, $1, $2) }) var apps: [String] = []
    @Flag(help: "Print JSON.") var json = false

    /// Calls `method` (GetStatus or Check) for each app named, or once for
    /// all, shows the apps, exits with their code.
    func show(_ method: ControlMethod, defaultTimeout: Int) throws -> Never {
        let connection = try client.connect(defaultTimeout: defaultTimeout)
        guard !apps.isEmpty else { try ssvcctl.show(try decodeApps(try request(connection, method)), json: json) }
        var shown: [AppStatus] = []
        for app in apps where !shown.contains(where: { $0.name == app }) {
            shown += try decodeApps(try request(connection, method, app: app))
        }
        try ssvcctl.show(shown, json: json)
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show each app's last result and next check.")

    @OptionGroup var options: AppsOptions

    @Flag(help: ArgumentHelp(
        "One line in the Monitoring Plugins format (Nagios, Icinga), with its exit code.",
        discussion: "0 OK, 1 WARNING (an update available), 2 CRITICAL (an update required, or no success for two periods), "
            + "3 UNKNOWN (the daemon does not answer within min(--timeout, 10) s, or no such app)."
    ))
    var nagios = false

    func validate() throws {
        if nagios && options.json { throw ValidationError("--nagios and --json exclude each other") }
        if nagios && options.apps.count > 1 { throw ValidationError("--nagios takes one app or all") }
    }

    func run() throws {
        guard nagios else { try options.show(.getStatus, defaultTimeout: 10) }
        let result = Monitoring.plugin(
            Monitoring.status(socket: options.client.socket, app: options.apps.first, timeout: min(options.client.timeout ?? 10, 10))
        )
        print(result.line)
        throw ExitCode(result.code)
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check now (root or the control-group) and show the results.")

    @OptionGroup var options: AppsOptions

    func run() throws { try options.show(.check, defaultTimeout: 300) }
}

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make the daemon read its configuration again.")

    @OptionGroup var client: ClientOptions

    @Flag(name: .shortAndLong, help: ArgumentHelp(
        "Print nothing when the daemon reloads or refuses the new configuration: it journals why itself.",
        discussion: "For the unit's ExecReload=, whose output would reach the journal as lines without fields."
    ))
    var quiet = false

    func run() throws {
        _ = try request(try client.connect(defaultTimeout: 60), .reload) { [quiet] error in
            quiet && error.remoteName == .invalidConfiguration
        }
        if !quiet { print("configuration reloaded") }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print events (checks, notices, reloads) as they happen.")

    @OptionGroup var client: SocketOption
    @Argument(help: "Only this app.", completion: .custom { AppNames.complete($0, $1, $2) }) var app: String?
    @Flag(help: "Print one JSON object per line.") var json = false

    func run() throws {
        let connection = try client.connect()
        var reply = try request(connection, .watch, app: app, more: true)
        while true {
            guard let event = try? JSONDecoder().decode([String: ControlEvent].self, from: Data(reply))["event"] else {
                StandardError.writeLine("ssvcctl: the daemon sent an unexpected event")
                throw ExitStatus.failure
            }
            if json {
                print(ConsoleJSON.text(event))
            } else {
                print(AppTable.describe(event))
            }
            fflush(stdout)
            do {
                reply = try connection.nextReply()
            } catch {
                StandardError.writeLine("ssvcctl: \(explain(error))")
                throw ExitStatus.failure
            }
        }
    }
}
