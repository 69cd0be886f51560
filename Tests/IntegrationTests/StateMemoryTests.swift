import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// Issue 52, item 5: a state file costs the daemon's start at most 4 times
/// its size over the daemon's usual resident set. Before: read whole into a
/// tree, then decoded whole, a file of 52,269 holds of apps no longer
/// configured peaked at 11 times its size (708 MiB for 64 MiB).
@Suite("ssvcd: a large state file read in bounded memory", .processSlot)
struct StateMemoryTests {
    @Test("16 MiB of holds of apps no longer configured: the start peaks under 4× the file over idle, keeps the newest 1,000 and says the rest once")
    func holdsOfGoneApps() async throws {
        let folder = try TemporaryFolder()
        let document = try folder.file("latest.json", #"{"SSVCLatestVersionKey": "2.0", "SSVCLatestVersionAvailableSince": "2026-01-01T00:00:00Z"}"#)
        let apps = appTable("kept", url: "file://" + document)
        // A real record: checked, then held, written by the daemon itself.
        let first = try DaemonProcess(apps: apps, folder: folder)
        #expect(await first.wait { first.app("kept")?["lastCheck"] != nil }, "\(first.log)")
        #expect(try await Executable.run("ssvcctl", ["--socket", first.socketPath, "hold", "kept", "1.5"]).status == 0)
        let idle = try AdvisoryMemoryTests.statusKiB(first.process.pid, "VmRSS")
        #expect(await first.stop() == 0)

        let path = first.stateDirectory + "/state.json"
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let kept = try #require((written["apps"] as? [String: Any])?["kept"])
        let record = String(decoding: try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]), as: UTF8.self)
        // The record under other names, each held a second apart, up to
        // 16 MiB: built and written off the pool, as a test's long input is
        // (a regex per copy here once starved another test's probe, issue 49).
        let since = try #require(record.firstRange(of: #/"since":"[^"]*"/#), "\(record)")
        let (head, tail) = (String(record[..<since.lowerBound]), String(record[since.upperBound...]))
        let count = (16 << 20) / (record.utf8.count + 20)
        let fileKiB = try await offPool { () throws -> Int in
            let base = Date(timeIntervalSince1970: 1_767_225_600)
            let format = ISO8601DateFormatter()
            var text = #"{"schema":1,"apps":{"kept":\#(record)"#
            text.reserveCapacity(17 << 20)
            for index in 0..<count {
                text += #","gone-\#(index)":\#(head)"since":"\#(format.string(from: base.addingTimeInterval(Double(index))))"\#(tail)"#
            }
            text += "}}"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return text.utf8.count >> 10
        }

        let second = try DaemonProcess(apps: apps, folder: folder)
        defer { second.abandon() }
        #expect(await second.wait(120) { FileManager.default.fileExists(atPath: second.socketPath) }, "\(second.log)")
        let peak = try AdvisoryMemoryTests.statusKiB(second.process.pid, "VmHWM")
        print("state file read: \(fileKiB) KiB file, peak \(peak) KiB, idle \(idle) KiB")
        #expect(peak <= 4 * fileKiB + idle, "peak \(peak) KiB at start, for a \(fileKiB) KiB file and \(idle) KiB idle")
        #expect(try await second.statusByApp()["kept"]?["hold"] as? String == "1.5", "the configured app's hold is kept")
        let dropped = count - 1_000
        #expect(second.log.contains("\(dropped) holds of apps no longer configured dropped, the oldest first"), "\(second.log.suffix(2_000))")
        #expect(await second.stop() == 0)
        let after = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let names = Set(((after["apps"] as? [String: Any]) ?? [:]).keys)
        #expect(names.count == 1_001 && names.contains("kept"))
        #expect(names.contains("gone-\(count - 1)") && !names.contains("gone-\(dropped - 1)"), "the newest holds are the ones kept")
    }

    @Test("a hold kept under a 1 MiB name, as a damaged state file may have it, is said in a short line")
    func longNameSaidShort() async throws {
        let folder = try TemporaryFolder()
        let document = try folder.file("latest.json", #"{"SSVCLatestVersionKey": "2.0"}"#)
        let name = String(repeating: "n", count: 1 << 20)
        let record = #"{"consecutiveFailures":3,"messages":{},"hold":{"version":"1.5","since":"2026-01-01T00:00:00Z"}}"#
        try FileManager.default.createDirectory(atPath: folder.url.appendingPathComponent("state").path, withIntermediateDirectories: true)
        try #"{"schema":1,"apps":{"\#(name)":\#(record)}}"#.write(toFile: folder.url.appendingPathComponent("state/state.json").path, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(apps: appTable("kept", url: "file://" + document), folder: folder)
        #expect(await daemon.wait { daemon.log.contains("no longer configured; its hold at 1.5 is kept") }, "\(daemon.log.suffix(500))")
        // Said while the state is read, before the daemon takes its signals
        // (the socket is bound before that too): stopped once it has started.
        #expect(await daemon.wait { daemon.log.contains("started with 1 apps") })
        #expect(await daemon.stop() == 0)
        let longest = daemon.log.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest < 16_384, "a log line of \(longest) bytes")
        #expect(daemon.app(name)?["hold"] != nil, "the hold itself is kept under its name")
    }
}
