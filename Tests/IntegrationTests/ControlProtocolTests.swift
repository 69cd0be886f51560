import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("control socket: protocol and permissions", .processSlot)
struct ControlProtocolTests {
    @Test("errors of the Varlink spec for unknown interfaces, methods and bad parameters; oneway gets no reply")
    func protocolErrors() async throws {
        let daemon = try await controlDaemon()
        let client = try RawConnection(daemon.socketPath)
        client.call("com.example.Nothing.Do")
        #expect(await client.receive().error == "org.varlink.service.InterfaceNotFound")
        client.call("io.ssvc.Daemon.Nope")
        #expect(await client.receive().error == "org.varlink.service.MethodNotFound")
        client.call("io.ssvc.Daemon.GetStatus", #"{"app":5}"#)
        #expect(await client.receive().error == "org.varlink.service.InvalidParameter")
        client.call("io.ssvc.Daemon.GetStatus", #"{"application":"alpha"}"#)
        #expect(await client.receive().error == "org.varlink.service.InvalidParameter")
        client.call("io.ssvc.Daemon.Watch")
        #expect(await client.receive().error == "org.varlink.service.ExpectedMore")
        client.call("org.varlink.service.GetInterfaceDescription", #"{"interface":"x.y"}"#)
        #expect(await client.receive().error == "org.varlink.service.InterfaceNotFound")
        client.call("io.ssvc.Daemon.GetStatus", "{}", extra: #","oneway":true"#)
        client.call("io.ssvc.Daemon.GetStatus", #"{"app":"alpha"}"#)
        guard case let .message(reply) = await client.receive() else {
            Issue.record("no reply after a oneway call")
            return
        }
        let apps = (reply["parameters"] as? [String: Any])?["apps"] as? [Any]
        #expect(apps?.count == 1, "the oneway call must not have been answered")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }

    @Test("GetStatus answered from the cache keeps replies in order and shows a check at once")
    func cachedStatus() async throws {
        let daemon = try await controlDaemon()
        let client = try RawConnection(daemon.socketPath)
        client.call("io.ssvc.Daemon.GetStatus")
        let first = try #require(await client.receive().message, "no reply to GetStatus")
        client.call("io.ssvc.Daemon.GetStatus")
        let cached = try #require(await client.receive().message, "no reply to GetStatus")
        #expect(NSDictionary(dictionary: cached) == NSDictionary(dictionary: first))

        // Two calls in one write: the second, answerable from the cache at
        // once, must still come after the first's reply.
        client.send("{\"method\":\"io.ssvc.Daemon.Check\",\"parameters\":{\"app\":\"nope\"}}\u{0}"
            + "{\"method\":\"io.ssvc.Daemon.GetStatus\",\"parameters\":{}}\u{0}")
        #expect(await client.receive().error == "io.ssvc.Daemon.NoSuchApp")
        let after = try #require(await client.receive().message, "no reply to GetStatus")
        #expect(after["error"] == nil)

        // A check changes the status: no client sees the old one.
        let lastCheck = { (reply: [String: Any]) in
            (((reply["parameters"] as? [String: Any])?["apps"] as? [[String: Any]])?.first?["lastCheck"] as? String) ?? ""
        }
        await pause(1.1)  // lastCheck has whole seconds
        let primer = try RawConnection(daemon.socketPath)
        primer.call("io.ssvc.Daemon.GetStatus")
        #expect(try await lastCheck(#require(primer.receive().message)) == lastCheck(first))
        let checker = try RawConnection(daemon.socketPath)
        checker.call("io.ssvc.Daemon.Check", #"{"app":"alpha"}"#)
        let checked = try #require(await checker.receive().message, "no reply to Check")
        let poller = try RawConnection(daemon.socketPath)
        poller.call("io.ssvc.Daemon.GetStatus")
        let fresh = try #require(await poller.receive().message, "no reply to GetStatus")
        #expect(lastCheck(fresh) == lastCheck(checked))
        #expect(lastCheck(fresh) != lastCheck(first))
        #expect(await daemon.stop() == 0)
    }

    /// ssvcctl copied where `nobody` can run it. The copy is made by `cp` in
    /// its own process: a descriptor open for writing in this process could
    /// leak into a child another test spawns meanwhile, and exec would then
    /// fail with "Text file busy".
    func ssvcctlForNobody(_ folder: TemporaryFolder) async throws -> String {
        let copy = folder.url.appendingPathComponent("ssvcctl").path
        let result = try await Executable.shell("cp '\(try Executable.path("ssvcctl"))' '\(copy)' && chmod 755 '\(copy)' '\(folder.url.path)'")
        try #require(result.status == 0, "\(result.standardError)")
        return copy
    }

    @Test("as nobody: GetStatus works, Check and Reload are PermissionDenied; the control-group may check")
    func permissions() async throws {
        try #require(getuid() == 0, "this test switches to nobody and needs root")
        let daemon = try await controlDaemon(daemon: "control-group = \"users\"")
        let ssvcctl = try await ssvcctlForNobody(daemon.folder)
        let asNobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", ssvcctl, "--socket", daemon.socketPath]
        let status = try await Executable.run("/usr/bin/setpriv", asNobody + ["status"])
        #expect(status.status == 10, "\(status.standardError)")
        #expect(status.standardOutput.contains("alpha"))
        let check = try await Executable.run("/usr/bin/setpriv", asNobody + ["check"])
        #expect(check.status == 1)
        #expect(check.standardError == "ssvcctl: permission denied: check, reload, hold and unhold need root, the daemon's own user, or membership of its control-group\n")
        let reload = try await Executable.run("/usr/bin/setpriv", asNobody + ["reload"])
        #expect(reload.status == 1)
        #expect(reload.standardError.contains("permission denied"))

        let inGroup = ["--reuid=nobody", "--regid=nogroup", "--groups=users", ssvcctl, "--socket", daemon.socketPath]
        let allowed = try await Executable.run("/usr/bin/setpriv", inGroup + ["check", "beta"])
        #expect(allowed.status == 0, "\(allowed.standardError)")

        // A reload that removes the group applies from the next call on.
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "control-group = \"users\"", with: "").write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"]).status == 0)
        let removed = try await Executable.run("/usr/bin/setpriv", inGroup + ["check", "beta"])
        #expect(removed.status == 1, "the removed group no longer checks: \(removed.standardOutput)")
        #expect(removed.standardError.contains("permission denied"))
        #expect(await daemon.stop() == 0)
    }

    @Test("ssvcctl: tables, JSON, exit codes, and clear errors")
    func ssvcctl() async throws {
        let daemon = try await controlDaemon()
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"])
        #expect(status.status == 10)
        let lines = status.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("APP    STATUS            CURRENT -> LATEST") == true, "\(status.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("alpha  update-available  1.0 -> 1.1") })
        #expect(lines.contains { $0.hasPrefix("beta   up-to-date        1.1 -> 1.1") })
        let beta = try await Executable.run("ssvcctl", ["status", "beta", "--json", "--socket", daemon.socketPath])
        #expect(beta.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(beta.standardOutput.utf8)) as? [String: Any])
        #expect((object["apps"] as? [[String: Any]])?.first?["nextCheckReason"] as? String == "schedule")
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "alpha"])
        #expect(check.status == 10)
        let missing = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "gamma"])
        #expect(missing.status == 1)
        #expect(missing.standardError == "ssvcctl: no such app: gamma\n")
        let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"])
        #expect(reload.status == 0)
        #expect(reload.standardOutput == "configuration reloaded\n")
        #expect(await daemon.stop() == 0)
        let down = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"])
        #expect(down.status == 1)
        #expect(down.standardError.contains("cannot connect to \(daemon.socketPath)"))
        #expect(down.standardError.contains("is ssvcd running?"))
    }

    @Test("ssvcctl reads a status reply longer than the 64 KiB a call may have (400 apps)")
    func longStatus() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let apps = (0..<400).map { appTable("app\($0)", url: document).replacingOccurrences(of: "daily", with: "never") }
        let daemon = try DaemonProcess(apps: apps.joined(separator: "\n"), folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json"])
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.utf8.count > 65_536)
        let object = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
        #expect((object?["apps"] as? [Any])?.count == 400)
        #expect(await daemon.stop() == 0)
    }

    @Test("ssvcctl reload --quiet prints nothing for a reload or a refused configuration, and says the rest")
    func quietReload() async throws {
        let daemon = try await controlDaemon()
        let done = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--quiet"])
        #expect(done.status == 0)
        #expect(done.standardOutput.isEmpty && done.standardError.isEmpty, "\(done.standardOutput)\(done.standardError)")
        let apps = daemon.folder.url.appendingPathComponent("apps.d").path
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        try "url = \"https://x/\"\nversion = \"1\"\nschedule = \"fortnightly\"\n".write(toFile: apps + "/x.toml", atomically: true, encoding: .utf8)
        let refused = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--quiet"])
        #expect(refused.status == 1)
        #expect(refused.standardOutput.isEmpty && refused.standardError.isEmpty, "\(refused.standardError)")
        let loud = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"])
        #expect(loud.status == 1)
        #expect(loud.standardError.contains("the new configuration is invalid"), "\(loud.standardError)")
        #expect(await daemon.stop() == 0)
        let gone = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--quiet"])
        #expect(gone.status == 1)
        #expect(gone.standardError.contains("cannot connect"), "\(gone.standardError)")
    }

    @Test("ssvcctl gives up on a daemon that never answers")
    func silentDaemon() async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("silent.sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        _ = UnixSocket.bind(listener, to: path)
        listen(listener, 4)
        let result = try await Executable.run("ssvcctl", ["--socket", path, "--timeout", "1", "status"])
        #expect(result.status == 1)
        #expect(result.standardError == "ssvcctl: the daemon at \(path) did not answer within 1 s (--timeout)\n")
        // Without --timeout, status gives up after 10 s, not 300.
        let byDefault = try await Executable.run("ssvcctl", ["--socket", path, "status"])
        #expect(byDefault.standardError == "ssvcctl: the daemon at \(path) did not answer within 10 s (--timeout)\n")
        #expect(byDefault.seconds < 20)
    }

    @Test("Watch delivers an event for a check another client asked for")
    func watch() async throws {
        let daemon = try await controlDaemon()
        let watcher = try RawConnection(daemon.socketPath)
        watcher.call("io.ssvc.Daemon.Watch", #"{"app":"alpha"}"#, extra: #","more":true"#)
        #expect(await watcher.receive(within: 0.5).isNothing)
        let other = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"])
        #expect(other.status == 10)
        guard case let .message(reply) = await watcher.receive() else {
            Issue.record("no event")
            return
        }
        #expect(reply["continues"] as? Bool == true)
        let event = try #require((reply["parameters"] as? [String: Any])?["event"] as? [String: Any])
        #expect(event["kind"] as? String == "check")
        #expect((event["app"] as? [String: Any])?["name"] as? String == "alpha")
        #expect(await watcher.receive(within: 0.5).isNothing, "only alpha's events")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }
}
