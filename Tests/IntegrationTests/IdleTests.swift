import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

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
