import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// Every place a secret could leak to: the daemon's log, its status (JSON
/// and table) and its state file; the journal entries of its PID when it
/// logs there. Returns the places where `secrets` were found.
func leaks(of secrets: [String], in daemon: DaemonProcess, journal: Bool = false) async throws -> [String] {
    var places: [String: String] = [
        "log": daemon.log,
        "status --json": try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json"]).standardOutput,
        "status": try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"]).standardOutput,
        "state": (try? String(contentsOfFile: daemon.stateDirectory + "/state.json", encoding: .utf8)) ?? "",
    ]
    if journal {
        places["journal"] = try await Executable.run("/usr/bin/journalctl", ["-o", "export", "--no-pager", "_PID=\(daemon.process.pid)"]).standardOutput
    }
    return places.flatMap { place, text in secrets.filter { text.contains($0) }.map { "\($0) in \(place)" } }
}

/// A TCP listener on 127.0.0.1 that resets every connection once it has
/// read the request: a proxy that resets.
final class ResettingListener {
    let folder: TemporaryFolder
    let process: ChildProcess
    let port: Int

    init() async throws {
        folder = try TemporaryFolder()
        let portFile = folder.url.appendingPathComponent("port").path
        let script = """
            import socket, struct, sys
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
            import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
            while True:
                c, _ = s.accept(); c.recv(65536)
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()
            """
        process = try ChildProcess("/usr/bin/python3", ["-c", script, portFile])
        var found: Int?
        _ = await eventually(within: 10, every: 0.05) {
            found = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            return found != nil
        }
        port = try #require(found, "the resetting listener did not start")
    }

    /// Killed when the test lets go of it (and reaped by `ChildProcess`).
    deinit { kill(process.pid, SIGKILL) }
}
