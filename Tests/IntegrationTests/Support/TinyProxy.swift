import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// Debian's tinyproxy on 127.0.0.1, in the foreground, logging every
/// request it forwards: `GET http://…` for plain http in absolute form,
/// `CONNECT host:port` for a tunnel. With `user`, it wants Basic proxy
/// authorization and answers 407 without it.
final class TinyProxy {
    let folder: TemporaryFolder
    private(set) var port = 0
    private(set) var process: ChildProcess?
    private let logPath: String
    let user: String?
    let password: String?

    /// Runs in the network namespace of that process (a booted container's PID 1).
    private let networkOf: pid_t?

    init(user: String? = nil, password: String? = nil, networkOf: pid_t? = nil) async throws {
        self.user = user
        self.password = password
        self.networkOf = networkOf
        folder = try TemporaryFolder()
        logPath = folder.url.appendingPathComponent("tinyproxy.log").path
        let binary = "/usr/bin/tinyproxy"
        try #require(FileManager.default.isExecutableFile(atPath: binary), "tinyproxy is not installed (make test installs it)")
        try await start()
    }

    /// Starts it, on the same port after a `stop()`.
    func start() async throws {
        for _ in 0..<5 {
            if port == 0 { port = try freeLoopbackPort() }
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 20", "LogLevel Info", "MaxClients 50", "DisableViaHeader Yes",
            ]
            if let user, let password { lines.append("BasicAuth \(user) \(password)") }
            let config = try folder.file("tinyproxy.conf", lines.joined(separator: "\n") + "\n")
            var command = ["/usr/bin/tinyproxy", "-d", "-c", config]
            if let networkOf { command = ["/usr/bin/nsenter", "--target=\(networkOf)", "--net", "--"] + command }
            let readyBefore = readyLines
            let started = try ChildProcess(command[0], Array(command.dropFirst()), output: logPath, error: logPath)
            if await eventually(within: 5, every: 0.05, { !started.isRunning || readyLines > readyBefore }), started.isRunning {
                process = started
                return
            }
            kill(started.pid, SIGKILL)
            _ = await started.exited()
            port = 0
        }
        try #require(Bool(false), "tinyproxy did not start: \(log)")
    }

    func stop() async {
        guard let process else { return }
        kill(process.pid, SIGTERM)
        _ = await process.exited(within: 5)
        self.process = nil
    }

    /// One still running is killed (and reaped by `ChildProcess`).
    deinit { if let process { kill(process.pid, SIGKILL) } }

    /// The URL a client configures, with the credentials when it has them.
    var url: String {
        let credentials = user.map { "\($0):\(password ?? "")@" } ?? ""
        return "http://\(credentials)127.0.0.1:\(port)"
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// How often it has said it is listening: once per start.
    private var readyLines: Int {
        log.split(separator: "\n").filter { $0.contains("Accepting connections") }.count
    }

    /// Requests for `port` it took in absolute form (a 407 counts too).
    func forwarded(toPort port: Int) -> Int {
        log.split(separator: "\n").filter { $0.contains("Request (") && $0.contains("): GET http://") && $0.contains(":\(port)/") }.count
    }

    /// Tunnels to `port` it was asked for (a 407 counts too).
    func tunnels(toPort port: Int) -> Int {
        log.split(separator: "\n").filter { $0.contains("Request (") && $0.contains("): CONNECT ") && $0.contains(":\(port) HTTP") }.count
    }
}
