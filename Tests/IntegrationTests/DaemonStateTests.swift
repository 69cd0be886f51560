import Foundation
import SSVCTestSupport
import Testing

@Suite("ssvcd: the state file across restarts", .processSlot)
struct DaemonStateTests {
    /// A state file as a previous run would have left it.
    func writeState(_ folder: TemporaryFolder, app: String, lastCheck: Date) throws {
        let formatter = ISO8601DateFormatter()
        let state: [String: Any] = [
            "schema": 1,
            "apps": [app: [
                "lastCheck": formatter.string(from: lastCheck), "lastFetch": formatter.string(from: lastCheck),
                "lastSuccess": formatter.string(from: lastCheck), "consecutiveFailures": 0, "messages": [String: Any](),
                "response": goodBody, "currentVersion": "1.0",
            ]],
        ]
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("state"), withIntermediateDirectories: true)
        _ = try folder.file("state/state.json", try JSONSerialization.data(withJSONObject: state))
    }

    @Test("checked an hour ago on a daily schedule: no check at start")
    func recent() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        try writeState(folder, app: "recent", lastCheck: Date().addingTimeInterval(-3_600))
        let daemon = try DaemonProcess(apps: appTable("recent", url: server.url("/ssvc")), folder: folder)
        #expect(await daemon.wait { daemon.log.contains("started with 1 apps") })
        await pause(2)
        #expect(server.requests().isEmpty)
        #expect(daemon.lines(for: "recent").isEmpty)
        #expect(await daemon.stop() == 0)
        #expect(daemon.app("recent")?["response"] as? String == goodBody)
    }

    @Test("checked three days ago on a daily schedule: a catch-up within the window")
    func overdue() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        try writeState(folder, app: "overdue", lastCheck: Date().addingTimeInterval(-3 * 86_400))
        let daemon = try DaemonProcess(
            daemon: "first-check-window-seconds = 0\ncatch-up-window-seconds = 3", apps: appTable("overdue", url: server.url("/ssvc")), folder: folder
        )
        // The catch-up in the 3 s window (the default's would fall anywhere
        // in an hour). Not 6 s from the spawn: a loaded machine once took
        // seconds to start a debug daemon (issue 49).
        #expect(await daemon.wait(30) { server.requests().count == 1 })
        #expect(await daemon.stop() == 0)
    }

    @Test("a truncated state file is moved aside, reported, and the daemon starts fresh")
    func truncated() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("state"), withIntermediateDirectories: true)
        _ = try folder.file("state/state.json", #"{"schema":1,"apps":{"a":{"lastCheck":"2026-"#)
        let daemon = try DaemonProcess(apps: appTable("fresh", url: server.url("/ssvc")), folder: folder)
        #expect(await daemon.wait { daemon.app("fresh")?["lastSuccess"] != nil })
        let recovered = try #require(daemon.log.split(separator: "\n").first { $0.contains("MESSAGE_ID=9965ab0fa7964e30beac5cd87bac8145") })
        #expect(recovered.hasPrefix("<4>state file unusable"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory)
        #expect(leftovers.contains { $0.hasPrefix("state.json.corrupt-") })
        #expect(await daemon.stop() == 0)
    }

    @Test("bad fields in the state file cost those fields alone: a hold number of -1, a count of 2.5, a hold without its time, a name that is not UTF-8; every other app's results and holds stay, each said by its path (issue 52)")
    func stateFieldsAlone() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("state"), withIntermediateDirectories: true)
        let kept = #"{"consecutiveFailures":0,"messages":{},"lastCheck":"\#(ISO8601DateFormatter().string(from: Date()))","response":"{}","#
            + #""hold":{"version":"0.9","since":"2026-01-01T00:00:00Z"}}"#
        var text = Array(#"{"schema":1,"apps":{"kept":\#(kept),"#.utf8)
        text += Array(#""number":{"consecutiveFailures":0,"messages":{},"hold":{"version":"0.8","number":-1,"since":"2026-01-01T00:00:00Z"}},"#.utf8)
        text += Array(#""count":{"consecutiveFailures":2.5,"messages":{}},"#.utf8)
        text += Array(#""timeless":{"consecutiveFailures":0,"messages":{},"hold":{"version":"0.7"}},"#.utf8)
        text += Array(#"""#.utf8) + [0xFF, 0xFE] + Array(#"":{"consecutiveFailures":0,"messages":{}}}}"#.utf8)
        _ = try folder.file("state/state.json", Data(text))
        let apps = ["kept", "number", "count", "timeless"].map { appTable($0, url: server.url("/ssvc")) }
        let daemon = try DaemonProcess(apps: apps.joined(separator: "\n"), folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait { daemon.log.contains("started with 4 apps") }, "\(daemon.log)")
        let status = try await daemon.statusByApp()
        #expect(status["kept"]?["hold"] as? String == "0.9" && status["number"]?["hold"] as? String == "0.8", "\(status)")
        #expect(status["count"]?["consecutiveFailures"] as? Int == 0 && status["timeless"]?["hold"] == nil, "\(status)")
        for said in [
            "state.json: apps.number.hold.number out of range (-1); removed", "state.json: apps.count.consecutiveFailures out of range (2.5); set to 0",
            "state.json: apps.timeless.hold: dropped: it has no since", "state.json: apps: a record dropped: its name is not text",
        ] {
            #expect(daemon.log.contains(said), "\(said): \(daemon.log)")
        }
        #expect(!daemon.log.contains("state file unusable") && !daemon.log.contains("DecodingError"), "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    /// The temporaries a killed writer left in `directory`: their being
    /// there is what shows that a kill landed inside a state write.
    func leftTemporaries(_ directory: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("state.json.tmp-") }.count
    }

    @Test("kill -9 inside state writes and at random points, until 200 real fetches, never leaves an unparsable state file")
    func killNine() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        var random = SystemRandomNumberGenerator()
        var run = 0
        var killsInWrites = 0
        while server.requests().count < 200 {
            run += 1
            try #require(run <= 400, "only \(server.requests().count) fetches in 400 runs")
            // Five new apps each run, so that every run checks five times at once.
            let apps = (0..<5).map { appTable("r\(run)-\($0)", url: server.url("/ssvc")) }.joined(separator: "\n")
            let daemon = try DaemonProcess(apps: apps, folder: folder)
            if run.isMultiple(of: 2) {
                await pause(Double.random(in: 0.005...0.25, using: &random))
            } else {
                // Aimed: as soon as a writer's temporary appears, while it
                // is written and fsynced, before its rename. The watch spins
                // on a thread of its own, never on the pool.
                let (directory, pid) = (daemon.stateDirectory, daemon.process.pid)
                await offPool {
                    let deadline = Date().addingTimeInterval(3)
                    while leftTemporaries(directory) == 0 && Date() < deadline {}
                    kill(pid, SIGKILL)
                }
            }
            kill(daemon.process.pid, SIGKILL)
            _ = await daemon.process.exited()
            if leftTemporaries(daemon.stateDirectory) > 0 { killsInWrites += 1 }
            let path = daemon.stateDirectory + "/state.json"
            if let data = FileManager.default.contents(atPath: path) {
                let parsed = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                #expect(parsed?["schema"] as? Int == 1, "run \(run): state.json does not parse")
            }
            #expect(!daemon.log.contains("state file unusable"), "run \(run) found a torn state file")
        }
        #expect(killsInWrites >= 10, "only \(killsInWrites) of \(run) kills landed inside a state write")
        print("killNine: \(run) runs, \(server.requests().count) fetches, \(killsInWrites) kills inside a state write")
    }
}
