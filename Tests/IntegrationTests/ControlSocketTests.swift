import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// A daemon with two apps on `file://` documents, for the socket's tests.
func controlDaemon(daemon settings: String = "", environment: [String: String] = [:]) async throws -> DaemonProcess {
    let folder = try TemporaryFolder()
    let document = "file://" + (try folder.file("r.json", goodBody))
    let apps = appTable("alpha", url: document) + "\n" + appTable("beta", url: document).replacingOccurrences(of: "\"1.0\"", with: "\"1.1\"")
    let daemon = try DaemonProcess(daemon: settings, apps: apps, environment: environment, folder: folder)
    await #expect(daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) && daemon.app("beta")?["lastSuccess"] != nil })
    return daemon
}

/// GetStatus still answers, and correctly, after whatever a test did.
func expectHealthy(_ daemon: DaemonProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(daemon.process.isRunning, sourceLocation: sourceLocation)
    let client = try RawConnection(daemon.socketPath)
    client.call("io.ssvc.Daemon.GetStatus")
    guard case let .message(reply) = await client.receive() else {
        Issue.record("no answer to GetStatus", sourceLocation: sourceLocation)
        return
    }
    let apps = ((reply["parameters"] as? [String: Any])?["apps"] as? [Any]) ?? []
    let names = apps.compactMap { ($0 as? [String: Any])?["name"] as? String }
    #expect(names == ["alpha", "beta"], sourceLocation: sourceLocation)
}

@Suite("control socket: an independent client (Python's varlink)", .processSlot)
struct PythonVarlinkTests {
    @Test("GetInfo, GetInterfaceDescription, GetStatus, Check, Hold, Unhold and an unknown method")
    func python() async throws {
        let daemon = try await controlDaemon()
        let script = """
            import json, sys, varlink
            out = {}
            with varlink.Client(address="unix:\(daemon.socketPath)") as client:
                with client.open("org.varlink.service") as service:
                    out["info"] = dict(service.GetInfo())
                    out["description"] = service.GetInterfaceDescription(interface="io.ssvc.Daemon")["description"]
                with client.open("io.ssvc.Daemon") as ssvc:
                    out["status"] = [dict(a) for a in ssvc.GetStatus()["apps"]]
                    out["check"] = [a["name"] for a in ssvc.Check(app="beta")["apps"]]
                    out["hold"] = dict(ssvc.Hold(app="alpha", version="1.0")["app"])
                    out["unhold"] = dict(ssvc.Unhold(app="alpha")["app"])
                    try:
                        ssvc.GetStatus(app="nope")
                    except varlink.VarlinkError as e:
                        out["nosuchapp"] = [e.error(), e.parameters()]
                conn = client.open_connection()
                conn.sendall(b'{"method":"io.ssvc.Daemon.Frobnicate","parameters":{}}\\0')
                data = b""
                while not data.endswith(b"\\0"):
                    data += conn.recv(4096)
                out["unknown"] = json.loads(data[:-1])
            json.dump(out, sys.stdout, default=str)
            """
        let result = try await Executable.run("/usr/bin/env", ["python3", "-c", script])
        try #require(result.status == 0, "python varlink client failed: \(result.standardError)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let info = try #require(out["info"] as? [String: Any])
        #expect(info["product"] as? String == "ssvcd")
        #expect(info["interfaces"] as? [String] == ["org.varlink.service", "io.ssvc.Daemon"])
        let served = try #require(out["description"] as? String)
        let source = try String(contentsOf: ShippedInterface.file, encoding: .utf8)
        #expect(served == source, "GetInterfaceDescription must serve the .varlink file as it is")
        let status = try #require(out["status"] as? [[String: Any]])
        #expect(status.map { $0["name"] as? String } == ["alpha", "beta"])
        #expect(status.first?["status"] as? String == "update-available")
        #expect(status.last?["status"] as? String == "up-to-date")
        #expect(status.first?["latestVersionNumber"] as? Int == 17_858_560)
        #expect(out["check"] as? [String] == ["beta"])
        let held = try #require(out["hold"] as? [String: Any])
        #expect(held["hold"] as? String == "1.0" && held["heldVersion"] as? String == "1.1" && held["heldBy"] as? String == "hold", "\(held)")
        #expect((out["unhold"] as? [String: Any])?["status"] as? String == "update-available")
        #expect((out["nosuchapp"] as? [Any])?.first as? String == "io.ssvc.Daemon.NoSuchApp")
        let unknown = try #require(out["unknown"] as? [String: Any])
        #expect(unknown["error"] as? String == "org.varlink.service.MethodNotFound")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }
}

enum ShippedInterface {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SSVCControl/io.ssvc.Daemon.varlink")
}

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

@Suite("control socket: hostile and careless clients", .processSlot)
struct ControlRobustnessTests {
    @Test("a silent client and a half-written message are closed after the idle timeout; a watcher is not")
    func idle() async throws {
        let daemon = try await controlDaemon(daemon: "idle-timeout-seconds = 1")
        let silent = try RawConnection(daemon.socketPath)
        let half = try RawConnection(daemon.socketPath)
        let watcher = try RawConnection(daemon.socketPath)
        half.send(#"{"method":"io.ssvc.Daemon.GetSta"#)
        watcher.call("io.ssvc.Daemon.Watch", extra: #","more":true"#)
        #expect(await silent.receive(within: 4).isClosed)
        #expect(await half.receive(within: 4).isClosed)
        #expect(await watcher.receive(within: 1).isNothing, "the watcher outlives the idle timeout")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "alpha"]).status == 10)
        #expect(await watcher.receive().message?["continues"] as? Bool == true, "and still gets events")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }

    @Test("a reload that shortens idle-timeout-seconds applies to the next connection")
    func idleTimeoutReloaded() async throws {
        let daemon = try await controlDaemon(daemon: "idle-timeout-seconds = 60")
        let before = try RawConnection(daemon.socketPath)
        #expect(await before.receive(within: 2).isNothing, "60 s in force")
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "idle-timeout-seconds = 60", with: "idle-timeout-seconds = 1")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"]).status == 0)
        let after = try RawConnection(daemon.socketPath)
        #expect(await after.receive(within: 4).isClosed, "1 s in force for a connection opened after the reload")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }

    @Test("garbage, bad JSON and a message over 64 KiB close that connection only", arguments: [
        "garbage", "json", "big", "array",
    ])
    func hostile(kind: String) async throws {
        let daemon = try await controlDaemon()
        let bystander = try RawConnection(daemon.socketPath)
        let client = try RawConnection(daemon.socketPath)
        switch kind {
        case "garbage": client.send([0xFF, 0xFE, 0x00, 0x01, 0x02, 0x00])
        case "json": client.send("{\"method\": \u{0}")
        case "array": client.send("[1,2,3]\u{0}")
        default: client.send(Array(repeating: UInt8(ascii: " "), count: 70 * 1024) + [0])
        }
        #expect(await client.receive(within: 5).isClosed)
        bystander.call("io.ssvc.Daemon.GetStatus")
        #expect(await bystander.receive().isReply)
        try await expectHealthy(daemon)
        let why = kind == "big" ? "a message longer than 65536 bytes" : "not a Varlink call"
        #expect(daemon.log.contains("closed the control connection of pid \(getpid()), uid \(getuid()): \(why)"), "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    @Test("300 malformed calls with 60,000-character method names write five short lines, not 39 MB; the daemon answers")
    func refusalsBoundedPerUser() async throws {
        let daemon = try await controlDaemon()
        let before = daemon.log.utf8.count
        let hostile = Array(#"{"method":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 60_000) + [0]
        for _ in 0..<300 {
            let client = try RawConnection(daemon.socketPath)
            client.send(hostile)
            #expect(await client.receive(within: 5).isClosed)
        }
        try await expectHealthy(daemon)
        let added = String(daemon.log.utf8.dropFirst(before)) ?? ""
        let lines = added.split(separator: "\n").filter { $0.contains("closed the control connection") }
        #expect(lines.count == RefusalLogLimits.linesPerInterval, "\(lines.count) lines")
        #expect(added.utf8.count < 16 * 1024, "\(added.utf8.count) bytes written")
        #expect(lines.allSatisfy { $0.utf8.count < 2_048 }, "\(lines.map(\.utf8.count))")
        #expect(lines.last?.contains("(the last line from this user for 60 s)") == true, "\(lines.last ?? "")")
        #expect(await daemon.stop() == 0)
    }

    @Test("500 simultaneous connections are all answered")
    func fiveHundred() async throws {
        let daemon = try await controlDaemon()
        let clients = try (0..<500).map { _ in try RawConnection(daemon.socketPath) }
        for client in clients { client.call("io.ssvc.Daemon.GetStatus", #"{"app":"beta"}"#) }
        var answered = 0
        for client in clients where await client.receive(within: 10).isReply { answered += 1 }
        #expect(answered == 500)
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }

    @Test("a client that leaves during Check or Watch troubles nobody")
    func leaving() async throws {
        let server = try await VersionServer(scenario: ["mode": "hang"])
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let apps = appTable("alpha", url: document) + "\n" + appTable("beta", url: document) + "\n"
            + appTable("slow", url: server.url("/ssvc")).replacingOccurrences(of: "daily", with: "never")
        let daemon = try DaemonProcess(daemon: "timeout-seconds = 3", apps: apps, folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) && daemon.app("beta") != nil })
        do {
            let checker = try RawConnection(daemon.socketPath)
            checker.call("io.ssvc.Daemon.Check", #"{"app":"slow"}"#)
            let watcher = try RawConnection(daemon.socketPath)
            watcher.call("io.ssvc.Daemon.Watch", "{}", extra: #","more":true"#)
            await pause(0.3)
        }
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "alpha"])
        #expect(status.status == 10)
        #expect(await daemon.wait(8) { daemon.app("slow")?["lastError"] != nil }, "the abandoned check still finishes")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "alpha"]).status == 10)
        #expect(daemon.process.isRunning)
        #expect(await daemon.stop() == 0)
    }
}

@Suite("control socket: binding", .processSlot)
struct ControlBindingTests {
    @Test("a stale socket is replaced; a live one or a plain file is not")
    func binding() async throws {
        let folder = try TemporaryFolder()
        // A stale socket: bound, then its process gone.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let path = folder.url.appendingPathComponent("control.sock").path
        _ = UnixSocket.bind(stale, to: path)
        close(stale)
        let first = try DaemonProcess(apps: "", folder: folder)
        await #expect(first.wait { first.log.contains("started with 0 apps") }, "\(first.log)")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o666)

        // A state folder of its own: the first holds the lock of "state".
        let second = try DaemonProcess(apps: "", arguments: ["--state-dir", folder.url.appendingPathComponent("state2").path], folder: folder)
        await #expect(second.process.exitCode() == 1)
        #expect(second.log.contains("another process is serving \(path)"), "\(second.log)")
        await #expect(first.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: path), "the socket is removed on stop")

        try "precious".write(toFile: path, atomically: true, encoding: .utf8)
        let third = try DaemonProcess(apps: "", folder: folder)
        await #expect(third.process.exitCode() == 1)
        #expect(third.log.contains("exists and is not a socket"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test("under systemd-socket-activate the daemon serves on the passed socket")
    func socketActivation() async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("activated.sock").path
        _ = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"\(folder.url.path)/unused.sock\"\n")
        let activator = try ChildProcess(
            "/usr/bin/systemd-socket-activate",
            ["-l", path, try Executable.path("ssvcd"), "--config", folder.url.path + "/ssvcd.toml", "--log-target", "stderr"]
        )
        _ = await eventually(within: 10, every: 0.02) { FileManager.default.fileExists(atPath: path) }
        let status = try await Executable.run("ssvcctl", ["--socket", path, "status"])
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput == "no apps configured\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url.path + "/unused.sock"))
        kill(activator.pid, SIGTERM)
        #expect(await activator.exitCode() == 0, "ssvcd stops cleanly on a socket systemd owns")
        #expect(FileManager.default.fileExists(atPath: path), "a socket systemd owns is not removed")
    }
}

/// RefusalLog's figures, as ssvcd(8) states them.
enum RefusalLogLimits {
    static let linesPerInterval = 5
}
