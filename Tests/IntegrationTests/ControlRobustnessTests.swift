import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

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

    @Test("a hold, then a message over 64 KiB on the same connection: the hold is answered once written, then the connection closed")
    func answeredBeforeTooLong() async throws {
        let daemon = try await controlDaemon()
        // The hold's write is still under way when the bad message is read.
        let disk = try await SlowDisk(pid: daemon.process.pid, seconds: 1, trace: daemon.folder.url.appendingPathComponent("strace.txt").path)
        defer { kill(disk.tracer.pid, SIGKILL) }
        let client = try RawConnection(daemon.socketPath)
        client.send(Array(#"{"method":"io.ssvc.Daemon.Hold","parameters":{"app":"alpha","version":"0.9"}}"#.utf8) + [0]
            + Array(repeating: UInt8(ascii: " "), count: 70 * 1024) + [0])
        let reply = await client.receive(within: 10)
        #expect(reply.isReply, "the hold made before the bad message is answered: \(reply)")
        #expect(await client.receive(within: 5).isClosed)
        _ = await disk.end()
        #expect((daemon.app("alpha")?["hold"] as? [String: Any])?["version"] as? String == "0.9")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }

    @Test("a client that sends over 64 KiB and closes at once is named by its uid, not as an unknown peer (issue 52)")
    func bigThenGone() async throws {
        let daemon = try await controlDaemon()
        for _ in 0..<3 {
            var client: RawConnection? = try RawConnection(daemon.socketPath)
            client?.send(Array(repeating: UInt8(ascii: " "), count: 70 * 1024) + [0])
            client = nil
        }
        let named = "closed the control connection of pid \(getpid()), uid \(getuid()): a message longer than 65536 bytes"
        #expect(await daemon.wait { daemon.log.contains(named) }, "\(daemon.log)")
        try await expectHealthy(daemon)
        #expect(!daemon.log.contains("an unknown peer"), "\(daemon.log)")
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
