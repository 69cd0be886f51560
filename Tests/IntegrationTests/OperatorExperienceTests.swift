import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// What a new operator meets, from the README and the built executables.
@Suite("what an operator meets: exit codes, stale marks, overrides", .processSlot)
struct OperatorExperienceTests {
    @Test("a check that failed exits 12, never 0; an update still exits 10 or 11 whatever else fails")
    func failingExitCode() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"1.0"}"#])
        let folder = try TemporaryFolder()
        let apps = appTable("gone", url: server.url("/gone")) + "\n" + appTable("fine", url: "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"1.0"}"#)))
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { daemon.app("gone")?["lastSuccess"] != nil && daemon.app("fine")?["lastSuccess"] != nil })
        func run(_ arguments: [String]) async throws -> Int32 {
            try await Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments + ["--timeout", "60"]).status
        }
        #expect(try await run(["status"]) == 0)
        try server.set(["status": 404, "body": ""])
        #expect(try await run(["check", "gone"]) == 12)
        #expect(try await run(["status", "gone"]) == 12)
        #expect(try await run(["status"]) == 12, "the worst over the apps shown")
        #expect(try await run(["status", "fine"]) == 0)
        try server.set(["body": goodBody])
        #expect(try await run(["check", "gone"]) == 10)
        #expect(await daemon.stop() == 0)
    }

    @Test("an app whose checks have never worked is not stale at first: Nagios says WARNING, never OK, and claims no kept answer")
    func notStaleAtFirstFailure() async throws {
        let daemon = try DaemonProcess(apps: appTable("new", url: "http://127.0.0.1:9/v.json"))
        #expect(await daemon.wait { (daemon.app("new")?["consecutiveFailures"] as? Int ?? 0) >= 1 })
        let status = try await daemon.statusByApp()["new"]
        #expect(status?["stale"] as? Bool == false)
        let failures = try #require(status?["consecutiveFailures"] as? Int)
        let nagios = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios", "--timeout", "60"])
        #expect(nagios.status == 1, "\(nagios.standardOutput)")
        // A retry may fail again between the two reads on a busy machine
        // (CI saw 2 where status had said 1): the count only grows.
        let prefix = "SSVC WARNING - checks failing: new ("
        let count = Int(nagios.standardOutput.dropFirst(prefix.count).prefix { $0.isNumber }) ?? 0
        #expect(count >= failures, "\(nagios.standardOutput)")
        #expect(nagios.standardOutput == """
            SSVC WARNING - checks failing: new (\(count) in a row, no good answer yet) \
            | 'apps'=1;;;0; 'update_available'=0;;;0; 'update_required'=0;;;0; 'stale'=0;;;0; 'failing'=1;;;0;

            """, "\(nagios.standardOutput)")
        #expect(await daemon.stop() == 0)
    }

    @Test("an app failing after a success: Nagios WARNING names when the kept answer was had")
    func failingAfterSuccess() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let daemon = try DaemonProcess(apps: appTable("kept", url: server.url("/v")))
        #expect(await daemon.wait { daemon.app("kept")?["lastSuccess"] != nil })
        try server.set(["body": goodBody, "status": 500])
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "kept", "--timeout", "60"])
        let status = try #require(try await daemon.statusByApp()["kept"])
        let success = try #require(status["lastSuccess"] as? String)
        let nagios = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios", "--timeout", "60"])
        #expect(nagios.status == 1, "\(nagios.standardOutput)")
        #expect(nagios.standardOutput.hasPrefix(
            "SSVC WARNING - update available: kept (1.0 -> 1.1); checks failing: kept (1 in a row, last good answer \(success) kept) | "
        ), "\(nagios.standardOutput)")
        #expect(await daemon.stop() == 0)
    }

    @Test("--socket on the command line moves the default metrics file with it")
    func socketOverrideMovesMetrics() async throws {
        let folder = try TemporaryFolder()
        let elsewhere = folder.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let socket = elsewhere.appendingPathComponent("io.ssvc.Daemon").path
        let config = """
            [daemon]
            state-dir = "state"
            socket = "/nonexistent/ssvc/io.ssvc.Daemon"
            first-check-window-seconds = 0
            """
        let daemon = try DaemonProcess(folder: folder, config: config, daemon: "", apps: "", arguments: ["--socket", socket], environment: [:])
        await #expect(daemon.wait { FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("ssvc.prom").path) }, "\(daemon.log)")
        #expect(!daemon.log.contains("cannot write the metrics file"))
        await #expect(daemon.stop() == 0)
    }
}
