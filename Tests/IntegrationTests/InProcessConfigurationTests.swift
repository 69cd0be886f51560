import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// Configuration is parsed in the daemon's own process: a load starts no
/// child, as `strace` attached to the running daemon shows.
@Suite("configuration parsed in process", .processSlot)
struct InProcessConfigurationTests {
    /// The calls that start a process `strace -f` saw in `pid` while `body` ran.
    func processCalls(of pid: pid_t, during body: () async throws -> Void) async throws -> [String] {
        let folder = try TemporaryFolder()
        let trace = folder.url.appendingPathComponent("strace.txt").path
        let tracer = try ChildProcess("/usr/bin/strace", ["-f", "-e", "trace=clone,clone3,fork,vfork,execve", "-p", "\(pid)", "-o", trace])
        defer { kill(tracer.pid, SIGKILL) }  // reaped by ChildProcess when released
        // Attached once the daemon's status names a tracer.
        _ = await eventually(within: 10, every: 0.05) { isTraced(pid) }
        try #require(isTraced(pid), "strace did not attach to \(pid)")
        try await body()
        kill(tracer.pid, SIGINT)
        _ = await tracer.exitCode()
        let lines = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        // A clone with CLONE_THREAD is a thread of Dispatch's pool, which
        // grows and shrinks with the machine's load on its own; a process is
        // a fork, a vfork, an execve, or a clone without it.
        return lines.filter { line in
            ["clone(", "clone3(", "fork(", "vfork(", "execve("].contains { line.contains($0) } && !line.contains("CLONE_THREAD")
        }
    }

    @Test("reloads of a daemon with apps in files start no process; a check that runs a version-command does")
    func reloadsStartNoChild() async throws {
        let folder = try TemporaryFolder()
        let body = try folder.file("r.json", goodBody)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        _ = try folder.file("apps.d/b.toml", "url = \"file://\(body)\"\nversion = \"1.0\"\nschedule = \"daily\"\n[query]\nchannel = \"stable\"\n")
        let daemon = try DaemonProcess(
            apps: appTable("a", url: "file://" + body) + "\n" + appTable("c", url: "file://" + body).replacingOccurrences(of: "version = \"1.0\"", with: "version-command = [\"/bin/echo\", \"1.0\"]"),
            folder: folder
        )
        #expect(await daemon.wait { daemon.app("a")?["lastSuccess"] != nil && daemon.app("b")?["lastSuccess"] != nil }, "\(daemon.log)")
        let reloads = try await processCalls(of: daemon.process.pid) {
            for _ in 0..<3 {
                let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--timeout", "60"])
                #expect(reload.status == 0, "\(reload.standardError)")
            }
        }
        #expect(reloads.isEmpty, "a reload started: \(reloads)")
        // The trace sees what it is meant to: the version-command's child.
        let check = try await processCalls(of: daemon.process.pid) {
            let result = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "c", "--timeout", "60"])
            #expect(result.status == 10, "\(result.standardOutput)")
        }
        #expect(check.contains { $0.contains("execve(\"/bin/echo\"") }, "\(check)")
        #expect(await daemon.stop() == 0)
    }
}
