import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// Holds pipelined on one connection while the disk is slow (issue 52):
/// their lines are appended to the holds log off the daemon's thread, holds
/// that come together sharing an append, the state file follows with its
/// batch, and other clients are answered meanwhile. The slow disk is
/// `strace` delaying every fsync and fdatasync of the daemon by 2 s, so the
/// order of the replies, not a clock, shows where the time went.
@Suite("holds under a storm and a slow disk", .processSlot)
struct HoldStormTests {
    static let apps = 50
    static let holds = 100
    static let fsyncDelay = 2.0

    @Test("100 pipelined holds share a few appends to the holds log, one or two state files and metrics files; another client's GetStatus is answered before the first hold (issue 52)")
    func slowDiskStorm() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let metrics = folder.url.appendingPathComponent("ssvc.prom").path
        let apps = (0..<Self.apps).map { appTable("a\($0)", url: document) }.joined(separator: "\n")
        let daemon = try DaemonProcess(daemon: "metrics-file = \"\(metrics)\"", apps: apps, folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait(30) { (0..<Self.apps).allSatisfy { daemon.app("a\($0)")?["lastSuccess"] != nil } }, "\(daemon.log)")
        // The start's writes are done once the metrics file names every app.
        #expect(await daemon.wait { ((try? String(contentsOfFile: metrics, encoding: .utf8)) ?? "").contains("app=\"a\(Self.apps - 1)\"") })

        let disk = try await SlowDisk(pid: daemon.process.pid, seconds: Self.fsyncDelay, trace: folder.url.appendingPathComponent("strace.txt").path)
        defer { kill(disk.tracer.pid, SIGKILL) }

        // Each hold changes its app's: the first 50 at 0.9, the next 50 at 0.8.
        let expected = (0..<Self.holds).map { ("a\($0 % Self.apps)", $0 < Self.apps ? "0.9" : "0.8") }
        let storm = try RawConnection(daemon.socketPath)
        storm.send(expected.map { #"{"method":"io.ssvc.Daemon.Hold","parameters":{"app":"\#($0.0)","version":"\#($0.1)"}}"# + "\u{0}" }.joined())
        let probe = try RawConnection(daemon.socketPath)
        let (status, _) = await probe.ask("io.ssvc.Daemon.GetStatus", #"{"app":"a1"}"#, within: 60)
        #expect(status.isReply, "\(status)")
        // The first hold waits for an append and its fdatasync, 2 s slow: a
        // daemon that wrote on its one thread answered the probe after it.
        var pending: UInt8 = 0
        let early = recv(storm.descriptor, &pending, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        #expect(early < 0, "a hold was answered before another client's GetStatus: the write held the daemon")

        // Shared appends answer them all in a few appends' time; one per
        // hold would take 100 times 2 s.
        var answered: [(String, String)] = []
        let deadline = ContinuousClock.now + .seconds(90)
        while answered.count < Self.holds, ContinuousClock.now < deadline {
            guard let reply = await storm.receive(within: 60).message, let app = (reply["parameters"] as? [String: Any])?["app"] as? [String: Any] else { break }
            answered.append(((app["name"] as? String) ?? "", (app["hold"] as? String) ?? ""))
        }
        #expect(answered.count == Self.holds && zip(answered, expected).allSatisfy { $0.0 == $0.1 }, "answered in order, each with its hold: \(answered.prefix(5))")
        let lines = await disk.end()
        // A rename's target; its temporary is "NAME.tmp-…".
        let stateWrites = lines.filter { $0.contains("rename") && $0.contains("\"state.json\"") }.count
        let metricsWrites = lines.filter { $0.contains("rename") && $0.contains("\"ssvc.prom\"") }.count
        let appends = lines.filter { $0.contains("fdatasync(") }.count
        // One append for the first hold, a few for the 99 that came while
        // it ran (64 answers wait on a connection at most); the state and
        // the metrics follow their one-second batch, each write 4 s slow
        // (a state file per few holds wrote 304 MiB for 1,000 holds of
        // 10,000 apps).
        #expect((1...6).contains(appends), "\(appends) appends to the holds log for \(Self.holds) holds")
        #expect((1...4).contains(stateWrites), "\(stateWrites) state writes for \(Self.holds) holds")
        #expect(metricsWrites <= 8, "\(metricsWrites) metrics files for \(Self.holds) holds")
        let held = (0..<Self.apps).map { daemon.app("a\($0)")?["hold"] as? [String: Any] }.map { $0?["version"] as? String }
        #expect(held.allSatisfy { $0 == "0.8" }, "on disk: \(held)")
        #expect(await daemon.stop() == 0)
    }
}
