import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// A daemon whose first check is done and whose next is an hour away, read
/// from outside through /proc: no socket call, which would count as work.
private func idleDaemon() async throws -> DaemonProcess {
    let folder = try TemporaryFolder()
    let document = "file://" + (try folder.file("r.json", goodBody))
    let daemon = try DaemonProcess(apps: appTable("idle", url: document).replacingOccurrences(of: "daily", with: "hourly"), folder: folder)
    try await #require(daemon.wait { daemon.app("idle")?["lastSuccess"] != nil }, "the first check did not succeed")
    return daemon
}

/// Context switches, voluntary and not, of each live thread of `pid`.
private func switchesByThread(_ pid: pid_t) -> [String: Int] {
    var switches: [String: Int] = [:]
    for thread in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else { continue }
        switches[thread] = status.split(separator: "\n")
            .filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
            .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
            .reduce(0, +)
    }
    return switches
}

/// RssFile of /proc/PID/status, in KiB.
private func residentFileKiB(_ pid: pid_t) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("RssFile:") } ?? ""
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}

/// glibc's malloc arenas besides the main one in `pid`: each is a heap
/// mapped at a 64 MiB boundary and reserved 64 MiB long (usable part and
/// reserve as two mappings, or one).
private func secondaryArenas(_ pid: pid_t) -> Int {
    let heapSize = 64 << 20
    let ranges = ((try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line -> (Int, Int, Bool)? in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        let bounds = fields.first?.split(separator: "-").compactMap { Int($0, radix: 16) } ?? []
        guard bounds.count == 2 else { return nil }
        return (bounds[0], bounds[1], fields.count == 5)  // no path: anonymous
    }
    let ends = Set(ranges.map(\.1))
    return ranges.filter { start, _, anonymous in anonymous && start % heapSize == 0 && ends.contains(start + heapSize) }.count
}

/// The tests wait with `Task.sleep`, not `sleep`: a blocked thread of the
/// test runner's small pool would hold up every other test meanwhile.
@Suite("an idle daemon", .processSlot)
struct IdleTests {
    @Test("with its next check an hour away, the built daemon makes no context switch in 20 s")
    func noWakeUps() async throws {
        let daemon = try await idleDaemon()
        // The memory release runs once, 10 s after the last work.
        try await Task.sleep(for: .seconds(12))
        let before = switchesByThread(daemon.process.pid)
        try #require(!before.isEmpty && daemon.process.isRunning, "no threads read from /proc/\(daemon.process.pid)/task")
        try await Task.sleep(for: .seconds(20))
        let after = switchesByThread(daemon.process.pid)
        // A thread born meanwhile counts whole; one that ended had woken too.
        let woken = after.filter { before[$0.key] != $0.value }
        #expect(
            woken.isEmpty && Set(after.keys) == Set(before.keys),
            "threads woke while idle: \(woken.map { "\($0.key): \($0.value - (before[$0.key] ?? 0)) switches" }), before \(before.keys.sorted()), after \(after.keys.sorted())"
        )
        #expect(await daemon.stop() == 0)
    }

    @Test("the daemon allocates from one malloc arena, however many of its threads have allocated; MALLOC_ARENA_MAX overrides it")
    func oneArena() async throws {
        let daemon = try await idleDaemon()
        for _ in 0..<3 { #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"]).status == 10) }
        #expect(secondaryArenas(daemon.process.pid) == 0, "\(secondaryArenas(daemon.process.pid)) arenas besides the main one")
        await #expect(daemon.stop() == 0)

        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let chosen = try DaemonProcess(apps: appTable("idle", url: document), environment: ["MALLOC_ARENA_MAX": "8"], folder: folder)
        try await #require(chosen.wait { chosen.app("idle")?["lastSuccess"] != nil })
        for _ in 0..<3 { #expect(try await Executable.run("ssvcctl", ["--socket", chosen.socketPath, "status"]).status == 10) }
        #expect(secondaryArenas(chosen.process.pid) > 0, "the operator's MALLOC_ARENA_MAX was not left to glibc")
        await #expect(chosen.stop() == 0)
    }

    @Test("the code pages a check touched are given back within 15 s of the last work, with no timer left running")
    func memoryGivenBack() async throws {
        let daemon = try await idleDaemon()
        let busy = residentFileKiB(daemon.process.pid)
        try await Task.sleep(for: .seconds(14))
        let idle = residentFileKiB(daemon.process.pid)
        #expect(idle * 2 < busy, "file-backed RSS went from \(busy) KiB to \(idle) KiB, not below half")
        // A call is work: it maps code back, and the release comes again.
        let result = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"])
        #expect(result.status == 10, "update-available: \(result.standardError)")
        let called = residentFileKiB(daemon.process.pid)
        #expect(called > idle, "the call mapped nothing back: \(idle) KiB then \(called) KiB")
        var releasedAgain = false
        for _ in 0..<70 where !releasedAgain {
            try await Task.sleep(for: .milliseconds(200))
            releasedAgain = residentFileKiB(daemon.process.pid) * 2 < busy
        }
        #expect(releasedAgain, "no second release within 14 s of the call")
        #expect(await daemon.stop() == 0)
    }
}

@Suite("source rules", .processSlot)
struct SourceRulesTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("no source file uses a global or a concurrent Dispatch queue")
    func noGlobalQueues() throws {
        let forbidden = ["DispatchQueue.global", ".global(", "attributes: .concurrent", ".concurrent]", "target: .global"]
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "found only \(files.count) Swift files under \(Self.sources.path)")
        var offences: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                for pattern in forbidden where code.contains(pattern) {
                    offences.append("\(file):\(number + 1): \(pattern)")
                }
            }
        }
        #expect(
            offences.isEmpty,
            """
            Work on a global or concurrent queue (or a serial queue targeting one) arms libdispatch's \
            worker-pool monitor, a 1 s timer that wakes the daemon for the rest of its life. Use a \
            DispatchQueue(label:) of your own, or Swift concurrency (MainQueueExecutor): \(offences)
            """
        )
    }
}
