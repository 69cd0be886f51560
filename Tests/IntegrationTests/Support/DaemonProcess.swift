import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// A built `ssvcd` running on a configuration written for one test, with its
/// state and log in the test's own folder.
final class DaemonProcess {
    let folder: TemporaryFolder
    let process: ChildProcess
    let stateDirectory: String
    let logPath: String
    let configPath: String
    let socketPath: String

    /// `daemon` holds extra `[daemon]` lines; `apps` whole `[[app]]` tables.
    /// The windows are 0 so that checks start at once, unless `daemon` says otherwise.
    convenience init(
        daemon: String = "", apps: String, arguments: [String] = [], environment: [String: String] = [:],
        folder: TemporaryFolder? = nil
    ) throws {
        try self.init(folder: folder ?? TemporaryFolder(), config: nil, daemon: daemon, apps: apps, arguments: arguments, environment: environment)
    }

    /// `binary` runs another ssvcd than the built one (an installed package's);
    /// `wrapper` is a command that ends by exec'ing it with its arguments.
    /// `standardError` is a descriptor for the daemon's standard error in
    /// place of the log file.
    init(
        folder: TemporaryFolder, config: String?, daemon: String, apps: String, arguments: [String],
        environment: [String: String], binary: String? = nil, wrapper: [String] = [], standardError: Int32? = nil
    ) throws {
        self.folder = folder
        stateDirectory = folder.url.appendingPathComponent("state").path
        logPath = folder.url.appendingPathComponent("ssvcd-\(UUID().uuidString.prefix(8)).log").path
        socketPath = folder.url.appendingPathComponent("control.sock").path
        let windows = daemon.contains("window") ? "" : "first-check-window-seconds = 0\ncatch-up-window-seconds = 0\n"
        configPath = try folder.file("ssvcd.toml", config ?? """
            [daemon]
            state-dir = "state"
            socket = "control.sock"
            apps-dir = "apps.d"
            min-interval-seconds = 0
            \(windows)\(daemon)

            \(apps)
            """)
        #expect(FileManager.default.createFile(atPath: logPath, contents: Data()))
        // The template's apps-dir: a configured one that does not exist stops the start.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        var variables = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID"] { variables[name] = nil }
        variables.merge(environment) { _, new in new }
        let command = wrapper + [try binary ?? Executable.path("ssvcd"), "--config", configPath, "--log-target", "stderr"] + arguments
        if let standardError {
            process = try ChildProcess(command, environment: variables, error: .descriptor(standardError))
        } else {
            process = try ChildProcess(
                command[0], Array(command.dropFirst()),
                environment: variables, error: logPath
            )
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Log lines naming `app`.
    func lines(for app: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains("SSVC_APP=\(app) ") || $0.contains("SSVC_APP=\(app)]") }
    }

    /// The state on disk: `state.json` with the lines of `holds.jsonl`
    /// (the holds set and lifted since it was written) applied, as the
    /// daemon reads them at its next start.
    var state: [String: Any]? {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/state.json"),
              var state = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        var apps = state["apps"] as? [String: Any] ?? [:]
        let log = (try? String(contentsOfFile: stateDirectory + "/holds.jsonl", encoding: .utf8)) ?? ""
        for line in log.split(separator: "\n") {
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let name = record["app"] as? String else { continue }
            var app = apps[name] as? [String: Any] ?? [:]
            if let hold = record["hold"] as? [String: Any] {
                app["hold"] = hold
                apps[name] = app
            } else {
                app["hold"] = nil
                // An app no longer configured is nothing but its hold.
                apps[name] = Set(app.keys).isSubset(of: ["consecutiveFailures", "messages"]) ? nil : app
            }
        }
        state["apps"] = apps
        return state
    }

    func app(_ name: String) -> [String: Any]? {
        (state?["apps"] as? [String: Any])?[name] as? [String: Any]
    }

    /// Each app of `ssvcctl status --json`, by name.
    func statusByApp() async throws -> [String: [String: Any]] {
        let result = try await Executable.run("ssvcctl", ["--socket", socketPath, "status", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
        let apps = try #require(object["apps"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: apps.compactMap { app in (app["name"] as? String).map { ($0, app) } })
    }

    /// Asks `condition` until it holds or `seconds` pass.
    @discardableResult
    func wait(_ seconds: Double = 10, until condition: () async throws -> Bool) async rethrows -> Bool {
        try await eventually(within: seconds, every: 0.02, condition)
    }

    /// Sends SIGTERM and awaits the exit status; a daemon that has not
    /// stopped after 30 s is killed and reported, so that no test hangs.
    /// A guard, not a speed bound (tests that bound a stop read
    /// `stopSeconds`): a stop fsyncs the state, and beside builds writing
    /// gigabytes three daemons at once once took over 10 s (issue 49).
    @discardableResult
    func stop(sourceLocation: SourceLocation = #_sourceLocation) async -> Int32 {
        let signalled = ContinuousClock.now
        if process.isRunning { kill(process.pid, SIGTERM) }
        let (termination, timedOut, ended) = await process.exited(within: 30)
        if timedOut { Issue.record("ssvcd did not stop within 30 s of SIGTERM", sourceLocation: sourceLocation) }
        stopSeconds = (ended - signalled) / .seconds(1)
        return termination.code
    }

    /// How long the last `stop()` took from SIGTERM to the exit, as the
    /// thread that waited for it saw it.
    private(set) var stopSeconds = 0.0

    /// Kills the daemon at once, for a test's cleanup in a `defer` (which
    /// cannot await); its `ChildProcess` reaps it when released.
    func abandon() {
        if process.isRunning { kill(process.pid, SIGKILL) }
    }

    /// Resident memory in KiB, from /proc.
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}

/// Ages every app's last check in a stopped daemon's state file, so that the
/// next start finds it overdue.
func ageState(in directory: String, by seconds: TimeInterval) throws {
    let path = directory + "/state.json"
    var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    var apps = try #require(state["apps"] as? [String: Any])
    let formatter = ISO8601DateFormatter()
    for (name, value) in apps {
        guard var app = value as? [String: Any] else { continue }
        for key in ["lastCheck", "lastFetch", "lastSuccess"] {
            if let text = app[key] as? String, let date = formatter.date(from: text) {
                app[key] = formatter.string(from: date.addingTimeInterval(-seconds))
            }
        }
        apps[name] = app
    }
    state["apps"] = apps
    try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: path))
}
