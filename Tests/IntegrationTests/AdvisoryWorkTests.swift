import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// Issue 51, items 1 to 3: a server's advisory text whose cost grew with
/// it held the daemon's executor for seconds (a 1 MiB package name 13.8 s,
/// 300,000 events to sort 13.6 s a page), and a mirror read past its time
/// went on burning CPU after its check had answered. Part of the
/// hostile-input step on the release binaries.
@Suite("ssvcd: advisory work never holds the daemon, and stops with its check", .processSlot)
struct AdvisoryWorkTests {
    /// An `[[app]]` asking the OSV API or mirror at `url` about PyPI's requests 2.30.0.
    static func apiApp(_ name: String, url: String) -> String {
        AdvisoryTests.advisoryApp(name, version: "2.30.0", ecosystem: "PyPI", source: url, extra: #"advisories-package = "requests""#)
    }

    /// A daemon whose one app reads a `slowExport` of `records` from a file.
    static func mirrorDaemon(records: Int, daemon settings: String) async throws -> (daemon: DaemonProcess, zip: String) {
        let folder = try TemporaryFolder()
        let zip = try await slowExport(records: records, in: folder)
        return (try DaemonProcess(daemon: settings, apps: apiApp("mirror", url: "file://\(zip)"), folder: folder), zip)
    }

    /// The daemon's CPU time so far, in clock ticks (utime + stime).
    static func cpuTicks(_ pid: pid_t) throws -> Int {
        let fields = try #require(try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8).split(separator: ")").last)
            .split(separator: " ")
        return try #require(Int(fields[11])) + #require(Int(fields[12]))
    }

    /// An export of `records` records of requests, each a range of 1,000
    /// events in no order: about 11 ms each for a release build to sort,
    /// ten times that for a debug build.
    static func slowExport(records: Int, in folder: TemporaryFolder) async throws -> String {
        let zip = folder.url.appendingPathComponent("all.zip").path
        let made = try await Executable.shell("""
            python3 -c 'import json, random, sys, zipfile
            rng = random.Random(5)
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                for i in range(int(sys.argv[2])):
                    events = []
                    for _ in range(500):
                        v = "%d.%d.%d" % (rng.randrange(100), rng.randrange(100), rng.randrange(1000))
                        events += [{"introduced": v}, {"fixed": v + ".post1"}]
                    record = {"id": "PYSEC-0000-%d" % i, "modified": "2026-01-01T00:00:00Z",
                              "affected": [{"package": {"ecosystem": "PyPI", "name": "requests"},
                                            "ranges": [{"type": "ECOSYSTEM", "events": events}]}]}
                    z.writestr("PYSEC-0000-%d.json" % i, json.dumps(record))' '\(zip)' \(records)
            """)
        try #require(made.status == 0, "\(made.standardError)")
        return zip
    }

    @Test("API answers that held the executor: a 1 MiB package name, 3 ranges of 100,000 shuffled events; each refused by name while GetStatus answers")
    func costlyAnswers() async throws {
        let name = String(repeating: "v", count: 1 << 20)
        // Seconds of string building in a debug build: off the pool.
        let ranges = await offPool {
            var generator = SystemRandomNumberGenerator()
            return (0..<3).map { _ in
                let events = (0..<100_000).map { index in
                    let version = "\(UInt8.random(in: 0...99, using: &generator)).\(index % 100).\(UInt16.random(in: 0...999, using: &generator))"
                    return index % 2 == 0 ? #"{"introduced":"\#(version)"}"# : #"{"fixed":"\#(version)"}"#
                }
                return #"{"type":"ECOSYSTEM","events":[\#(events.joined(separator: ","))]}"#
            }
        }
        func page(package: String, ranges: [String]) -> String {
            #"{"vulns":[{"id":"PYSEC-0000-1","modified":"2026-01-01T00:00:00Z","affected":[{"package":{"ecosystem":"PyPI","name":"\#(package)"},"ranges":[\#(ranges.joined(separator: ","))]}]}]}"#
        }
        let empty = #"{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"1.0"}]}"#
        let server = try await VersionServer(scenario: ["body": #"{"vulns": []}"#])
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("other.json", goodBody))
        let apps = [Self.apiApp("name", url: server.url("/name")), Self.apiApp("events", url: server.url("/events")), appTable("other", url: document)]
        let daemon = try DaemonProcess(daemon: "timeout-seconds = 60", apps: apps.joined(separator: "\n\n"), folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) && daemon.app("other")?["lastSuccess"] != nil }, "\(daemon.log)")
        try server.set(["paths": [
            "/name": ["pages": ["": page(package: name, ranges: [empty])]],
            "/events": ["pages": ["": page(package: "requests", ranges: ranges)]],
        ]])

        let check = try ChildProcess(
            try Executable.path("ssvcctl"), ["--socket", daemon.socketPath, "check", "name", "events", "--timeout", "300"], output: "/dev/null", error: "/dev/null"
        )
        let client = try RawConnection(daemon.socketPath)
        let checker = try RawConnection(daemon.socketPath)
        var slowest = 0.0
        var slowestCheck = 0.0
        var asked = 0
        let started = ContinuousClock.now
        while check.isRunning && asked < 5_000 {
            let (reply, seconds) = await client.ask("io.ssvc.Daemon.GetStatus", #"{"app":"other"}"#)
            slowest = max(slowest, seconds)
            guard reply.isReply else {
                Issue.record("GetStatus got \(reply) after \(seconds) s")
                break
            }
            if asked % 5 == 0 {
                let (checked, checkSeconds) = await checker.ask("io.ssvc.Daemon.Check", #"{"app":"other"}"#, within: 60)
                slowestCheck = max(slowestCheck, checkSeconds)
                guard checked.isReply else {
                    Issue.record("another app's Check got \(checked) after \(checkSeconds) s")
                    break
                }
            }
            asked += 1
            await pause(0.02)
        }
        let code = await check.exitCode()
        let took = (ContinuousClock.now - started) / .seconds(1)
        // Before, the name's normalisation and the events' sort ran on the
        // executor: GetStatus and another app's Check waited for all of it.
        // Within 1 s on a quiet machine; beside Tests/busy and a build, a
        // quarter of the check's time.
        #expect(slowest < max(1, took / 4), "GetStatus waited \(slowest) s while the answers were read (\(took) s)")
        #expect(slowestCheck < max(1, took / 4), "another app's Check took \(slowestCheck) s while the answers were read (\(took) s)")
        let statuses = try await daemon.statusByApp()
        let nameText = String(decoding: try JSONSerialization.data(withJSONObject: try #require(statuses["name"])), as: UTF8.self)
        #expect(nameText.contains("PYSEC-0000-1 names a package of 1048576 bytes, more than 1024"), "\(nameText.prefix(2_000))")
        #expect(nameText.utf8.count < 64 << 10, "the name is not repeated: \(nameText.utf8.count) bytes")
        let eventsText = String(decoding: try JSONSerialization.data(withJSONObject: try #require(statuses["events"])), as: UTF8.self)
        #expect(eventsText.contains("PYSEC-0000-1 has a range of 100000 events, more than 4096"), "\(eventsText.prefix(2_000))")
        // A record skipped that names the package could affect it: the
        // events app is unknown (exit 12), never clear; a 1 MiB name is no
        // package's, and that app stays clear.
        #expect(code == 12, "ssvcctl check exited \(code)")
        #expect(statuses["events"]?["advisoryState"] as? String == "unknown", "\(eventsText.prefix(2_000))")
        #expect(eventsText.contains("1 of the records skipped name requests: they could affect it"), "\(eventsText.prefix(2_000))")
        #expect(statuses["name"]?["advisoryState"] as? String == "clear", "\(nameText.prefix(2_000))")
        let other = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "other"])
        #expect(other.status == 10, "\(other.standardOutput)\(other.standardError)")
        #expect(await daemon.stop() == 0)
    }

    @Test("a mirror read past its time stops with its check: answered naming the limit, then under 0.5 CPU-seconds in the next 3 s")
    func readStopsAtDeadline() async throws {
        // 400 records: 4.5 s in all for a release build on 2 cores; 20
        // times timeout-seconds gives the read 0.2 s.
        let (daemon, zip) = try await Self.mirrorDaemon(records: 400, daemon: "timeout-seconds = 0.01")
        defer { daemon.abandon() }
        /// Seconds of CPU the daemon spends in the 3 s from now.
        func spentNext3s() async throws -> Double {
            let before = try Self.cpuTicks(daemon.process.pid)
            await pause(3)
            return Double(try Self.cpuTicks(daemon.process.pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        let limit = "reading \(zip) took longer than 20 times timeout-seconds (0.2 s)"
        // A read that went on would take most of the 3 s. What the daemon
        // does after an answer (state, metrics, journal) measured 0.20 s
        // once on one core shared with the whole suite (the strict check,
        // issue 49), and 0.2 was the bound.
        let idle = 0.5
        // The check at start: its read stops when it answers.
        #expect(await daemon.wait(60) { (daemon.app("mirror")?["lastError"] as? String)?.contains(limit) == true }, "\(daemon.log)")
        let afterStart = try await spentNext3s()
        #expect(afterStart < idle, "\(afterStart) s of CPU in the 3 s after the check at start answered")
        // The file changed: read again, not taken for the one read before.
        #expect(utimes(zip, nil) == 0)
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "mirror"])
        let afterCheck = try await spentNext3s()
        #expect(check.status == 12, "\(check.standardOutput)\(check.standardError)")
        #expect(check.standardOutput.contains(limit), "\(check.standardOutput)")
        #expect(afterCheck < idle, "\(afterCheck) s of CPU in the 3 s after the check answered")
        #expect(await daemon.stop() == 0)
    }

    @Test("SIGTERM during a long mirror read: the read ends with the stop, not at its time limit")
    func stopDuringRead() async throws {
        // 2,000 records: 22 s for a release build, minutes for a debug one;
        // the limit is 20 times 30 s.
        let (daemon, _) = try await Self.mirrorDaemon(records: 2_000, daemon: "timeout-seconds = 30")
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        // The check at start is reading: the daemon has spent 0.2 s of CPU
        // since its socket appeared. Counted in all, not per half second: on
        // one core shared with the whole suite (the strict check, issue 49)
        // it got less than a fifth of the core in every half second of ten.
        let atSocket = try Self.cpuTicks(daemon.process.pid)
        let reading = await daemon.wait(60) { ((try? Self.cpuTicks(daemon.process.pid)) ?? 0) - atSocket > 20 }
        #expect(reading, "the daemon never read: \(daemon.log)")
        #expect(await daemon.stop() == 0, "\(daemon.log)")
        // Before, the stop waited for the read to end (19 s for a release
        // build); now at most a range of 1,000 events. A stop takes 0.1 s
        // beside Tests/busy: 5 s is room for a far busier machine.
        #expect(daemon.stopSeconds < 5, "the stop took \(daemon.stopSeconds) s")
    }
}
