import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// The holds log of a real daemon (issue 52): a hold is on disk as a line
/// of `holds.jsonl` before its answer, and the state file follows with its
/// batch, so a storm of holds writes lines, not state files.
@Suite("the holds log of a running daemon", .processSlot)
struct HoldLogDaemonTests {
    /// What a process has passed to write(2) and its kin, from /proc.
    static func charactersWritten(_ pid: pid_t) -> Int {
        let io = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
        let line = io.split(separator: "\n").first { $0.hasPrefix("wchar:") } ?? ""
        return Int(line.split(separator: " ").last ?? "") ?? 0
    }

    /// Whether the daemon answers `ssvcctl status` (a killed one's socket
    /// file stays behind, so its presence says nothing).
    static func answers(_ daemon: DaemonProcess) async -> Bool {
        let result = try? await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json"])
        return result.map { (try? JSONSerialization.jsonObject(with: Data($0.standardOutput.utf8))) != nil } ?? false
    }

    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    @Test("a hold answered is kept through a kill the next moment: its line is read back at the start and written into the state")
    func keptThroughKill() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let apps = appTable("a", url: document) + "\n" + appTable("b", url: document)
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait { daemon.app("b")?["lastSuccess"] != nil }, "\(daemon.log)")
        let socket = ["--socket", daemon.socketPath]
        #expect(try await Executable.run("ssvcctl", socket + ["hold", "a", "0.9"]).status == 0)
        #expect(try await Executable.run("ssvcctl", socket + ["hold", "b", "0.8"]).status == 0)
        #expect(try await Executable.run("ssvcctl", socket + ["unhold", "b"]).status == 0)
        kill(daemon.process.pid, SIGKILL)
        _ = await daemon.process.exited(within: 10)
        let log = daemon.stateDirectory + "/holds.jsonl"
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        // The batch's state file may have come first, on a slow machine.
        #expect(lines.isEmpty || lines.last?.hasPrefix(#"{"app":"b","hold":null}"#) == true, "\(lines)")

        let again = try DaemonProcess(apps: apps, folder: folder)
        defer { again.abandon() }
        // The killed daemon's socket file is still there: wait for an answer.
        #expect(await again.wait { await Self.answers(again) }, "\(again.log)")
        let status = try await again.statusByApp()
        #expect(status["a"]?["hold"] as? String == "0.9" && status["b"]?["hold"] == nil, "\(status)")
        // As many as the log held at the kill: a batch may have taken the first in between.
        if !lines.isEmpty {
            let said = "\(lines.count) hold\(lines.count == 1 ? "" : "s") set or lifted since the state was last written: read from \(log)"
            #expect(again.log.contains(said), "\(again.log)")
        }
        #expect(!FileManager.default.fileExists(atPath: log), "written into the state, the log removed")
        #expect((again.app("a")?["hold"] as? [String: Any])?["version"] as? String == "0.9")
        #expect(await again.stop() == 0)
    }

    @Test("1,000 pipelined holds on 300 apps append lines and write the state file a few times, not once per few holds (issue 52)")
    func stormWritesLines() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let count = 300
        let apps = (0..<count).map { appTable("app\($0)", url: document) }.joined(separator: "\n")
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait(60) { daemon.app("app\(count - 1)")?["lastSuccess"] != nil }, "\(daemon.log)")
        // The start's batched write has ended once GetStatus says all were checked and a batch passed.
        let statePath = daemon.stateDirectory + "/state.json"
        #expect(await daemon.wait(30) { (daemon.state?["apps"] as? [String: Any])?.count == count })
        try await Task.sleep(for: .seconds(1.5))
        let stateBytes = Self.size(statePath)
        let before = (written: Self.charactersWritten(daemon.process.pid), logged: Self.size(daemon.logPath))
        let storm = try RawConnection(daemon.socketPath)
        let holds = 1_000
        storm.send((0..<holds).map { #"{"method":"io.ssvc.Daemon.Hold","parameters":{"app":"app\#($0 % count)","version":"0.\#($0 / count + 1)"}}"# + "\u{0}" }.joined())
        let started = ContinuousClock.now
        var answered = 0
        while answered < holds {
            guard let reply = await storm.receive(within: 60).message, reply["error"] == nil else { break }
            answered += 1
        }
        #expect(answered == holds)
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        // The state file that follows the storm, then the log's removal.
        #expect(await daemon.wait(30) { !FileManager.default.fileExists(atPath: daemon.stateDirectory + "/holds.jsonl") })
        let written = Self.charactersWritten(daemon.process.pid) - before.written
        // Past the replies, the journal's lines and the log's lines (under
        // 100 bytes each), state files: one per 64 holds or fewer, as
        // before the log, is 16 or more (measured before the log: 48.9; with it 2.7).
        // The batch writes one a second while the storm lasts, and the log
        // is rewritten after each: 2.7 quiet, 8 to 11 in a full run on 2
        // cores, 24 in a storm of 38.9 s on one slow core (issue 49). So
        // the bound is per second of the storm, not per hold: under the 16
        // that one per 64 holds would make while it lasts under 8 s, and
        // under 2 a second past that (a write per hold is 1,000).
        let others = storm.bytesReceived + Self.size(daemon.logPath) - before.logged + holds * 100
        let stateFiles = Double(written - others) / Double(stateBytes)
        #expect(
            stateFiles < max(16, 2 * seconds),
            "\(written) bytes written, \(others) of them replies, journal and log lines: \(String(format: "%.1f", stateFiles)) state files of \(stateBytes) bytes for \(holds) holds in \(String(format: "%.1f", seconds)) s"
        )
        let held = (0..<count).map { (daemon.app("app\($0)")?["hold"] as? [String: Any])?["version"] as? String }
        #expect(held.enumerated().allSatisfy { $0.element == ($0.offset < holds % count ? "0.4" : "0.3") }, "the last hold of each app on disk")
        #expect(await daemon.stop() == 0)
    }

    @Test("a full disk: the log's append that fails is said once and cut back, the hold falls back to the state file, the caller is told it is not on disk, and after a kill the log is read back")
    func fullDisk() async throws {
        let folder = try TemporaryFolder()
        let disk = try await SmallDisk(in: folder)
        defer { disk.unmount() }
        let small = disk.path
        let daemon = try disk.daemon(in: folder)
        defer { daemon.abandon() }
        let log = small + "/state/holds.jsonl"
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: small + "/state/state.json") })
        let socket = ["--socket", daemon.socketPath]
        #expect(try await Executable.run("ssvcctl", socket + ["hold", "d", "0.5"]).status == 0)
        #expect(await daemon.wait { !FileManager.default.fileExists(atPath: log) }, "the batch wrote the state and removed the log")

        try await disk.fill()
        for version in ["0.6", "0.7"] {
            let hold = try await Executable.run("ssvcctl", socket + ["hold", "d", version])
            #expect(hold.status == 0, "in force, answered once the state's write failed: \(hold.standardError)")
            // Neither the log nor a state file holds it: the caller is told, not only the journal.
            #expect(
                hold.standardError.hasPrefix("ssvcctl: warning: d: the hold is not on disk: ") && hold.standardError.contains("No space left on device"),
                "\(hold.standardError)"
            )
        }
        let lift = try await Executable.run("ssvcctl", socket + ["unhold", "d", "--json"])
        #expect(lift.standardError.contains("the lift is not on disk") && lift.standardOutput.contains("not on disk: "), "\(lift.standardError) \(lift.standardOutput)")
        #expect(try await Executable.run("ssvcctl", socket + ["hold", "d", "0.7"]).status == 0)
        #expect(daemon.log.components(separatedBy: "holds wait for the state file to be written, not the holds log, until the next state file is: cannot write \(log): No space left on device").count == 2, "said once: \(daemon.log)")
        #expect(Self.size(log) == 0, "no torn line left")
        #expect(try await daemon.statusByApp()["d"]?["hold"] as? String == "0.7", "in memory")

        // Space again: the next state write says so, and holds go to the log again.
        try FileManager.default.removeItem(atPath: small + "/fill")
        _ = try await Executable.run("ssvcctl", socket + ["check", "--timeout", "60"])
        #expect(await daemon.wait(5) { daemon.log.contains("holds are written to \(log) again") }, "\(daemon.log)")
        let onDisk = try await Executable.run("ssvcctl", socket + ["hold", "d", "0.8"])
        #expect(onDisk.status == 0 && !onDisk.standardError.contains("not on disk"), "\(onDisk.standardError)")
        kill(daemon.process.pid, SIGKILL)
        _ = await daemon.process.exited(within: 10)
        let again = try disk.daemon(in: folder)
        defer { again.abandon() }
        // The killed daemon's socket file is still there: wait for an answer.
        #expect(await again.wait { await Self.answers(again) }, "\(again.log)")
        #expect(try await again.statusByApp()["d"]?["hold"] as? String == "0.8", "\(again.log)")
        #expect(await again.stop() == 0)
    }
}
