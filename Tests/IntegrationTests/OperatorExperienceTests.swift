import Foundation
import Testing

/// What a new operator meets, from the README and the built executables.
@Suite("what an operator meets: exit codes, stale marks, overrides")
struct OperatorExperienceTests {
    @Test("a check that failed exits 12, never 0; an update still exits 10 or 11 whatever else fails")
    func failingExitCode() throws {
        let server = try VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"1.0"}"#])
        let folder = try TemporaryFolder()
        let apps = appTable("gone", url: server.url("/gone")) + "\n" + appTable("fine", url: "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"1.0"}"#)))
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(daemon.wait { daemon.app("gone")?["lastSuccess"] != nil && daemon.app("fine")?["lastSuccess"] != nil })
        func run(_ arguments: [String]) throws -> Int32 {
            try Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments + ["--timeout", "10"]).status
        }
        #expect(try run(["status"]) == 0)
        try server.set(["status": 404, "body": ""])
        #expect(try run(["check", "gone"]) == 12)
        #expect(try run(["status", "gone"]) == 12)
        #expect(try run(["status"]) == 12, "the worst over the apps shown")
        #expect(try run(["status", "fine"]) == 0)
        try server.set(["body": goodBody])
        #expect(try run(["check", "gone"]) == 10)
        #expect(daemon.stop() == 0)
    }

    @Test("an app whose first check failed a moment ago is not stale, and Nagios does not call it CRITICAL")
    func notStaleAtFirstFailure() throws {
        let daemon = try DaemonProcess(apps: appTable("new", url: "http://127.0.0.1:9/v.json"))
        #expect(daemon.wait { (daemon.app("new")?["consecutiveFailures"] as? Int ?? 0) >= 1 })
        let status = try daemon.statusByApp()["new"]
        #expect(status?["stale"] as? Bool == false)
        let nagios = try Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios", "--timeout", "10"])
        #expect(!nagios.standardOutput.contains("CRITICAL"), "\(nagios.standardOutput)")
        #expect(daemon.stop() == 0)
    }

    @Test("--socket on the command line moves the default metrics file with it")
    func socketOverrideMovesMetrics() throws {
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
        #expect(daemon.wait { FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("ssvc.prom").path) }, "\(daemon.log)")
        #expect(!daemon.log.contains("cannot write the metrics file"))
        #expect(daemon.stop() == 0)
    }
}
