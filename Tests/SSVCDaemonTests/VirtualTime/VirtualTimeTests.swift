import Foundation
import SSVCCore
@testable import SSVCDaemon
import Testing

/// The check service in process on a `ManualClock`: schedules, retries,
/// offers, reloads and writes, each over hours or days of virtual time in
/// milliseconds of wall time, against version servers in memory
/// (`MemoryTransport`; the fetcher's own tests use real servers).
///
/// The time limit is a guard against a hang, not a speed bound: each of these
/// tests' awaits queues behind every other test's work on the pool (one
/// thread per core), which under ThreadSanitizer beside a busy machine
/// is a minute or more (issue 49).
@Suite("the check service in virtual time", .timeLimit(.minutes(10)))
struct VirtualTimeTests {
    static let epoch = VirtualDaemon.epoch
    /// App `a`'s phase on machine `m1`, computed outside ssvc (FNV-1a 64,
    /// SplitMix64's finalizer, the top 53 bits).
    static let phaseOfA = 0.31085210535104735

    static func app(_ name: String, _ server: MemoryTransport, schedule: String = "daily", extra: String = "") -> String {
        """
        [[app]]
        name = "\(name)"
        url = "\(server.url("/" + name))"
        schedule = "\(schedule)"
        version = "1.0"
        \(extra)

        """
    }

    static func body(_ latest: String) -> MemoryTransport.Answer {
        MemoryTransport.Answer.document(#"{"SSVCLatestVersionKey":"\#(latest)"}"#)
    }

    /// A manual clock at the epoch, and a version server in memory that
    /// gives each request what `answer` says for its path.
    static func stage(
        _ answer: @escaping @Sendable (String) -> MemoryTransport.Answer
    ) async throws -> (ManualClock, MemoryTransport) {
        (ManualClock(now: epoch), MemoryTransport(every: { answer($0) }))
    }

    static func end(_ daemon: VirtualDaemon, _ server: MemoryTransport) async {
        await daemon.stop()
        await server.shutdown()
    }

    /// The times `app` was fetched at, as seconds after the epoch.
    static func fetches(_ server: MemoryTransport, _ app: String) -> [Double] {
        server.times(server.url("/\(app)"), since: epoch)
    }

    @Test("first checks are spread over the first-check window: each app once, at start + phase × window")
    func firstChecksSpread() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let names = ["a"] + (1...19).map { "app\($0)" }
        let daemon = try VirtualDaemon(apps: names.map { Self.app($0, server) }.joined(), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        #expect(server.requests.isEmpty, "nothing is fetched at start")
        await clock.advance(by: 600)
        let times = names.map { Self.fetches(server, $0) }
        #expect(times.allSatisfy { $0.count == 1 }, "\(times)")
        let first = times.compactMap(\.first)
        #expect(abs(first[0] - Self.phaseOfA * 600) < 1e-6, "a at \(first[0])")
        #expect(first.allSatisfy { $0 > 0 && $0 <= 600 }, "\(first)")
        #expect(Set(first).count == first.count, "no two together")
        for third in 0..<3 {
            #expect(first.contains { $0 > Double(third) * 200 && $0 <= Double(third + 1) * 200 }, "some in \(third * 200)…\((third + 1) * 200) s: \(first.sorted())")
        }
        await Self.end(daemon, server)
    }

    @Test("a daily app a period overdue at start catches up at start + phase × catch-up window")
    func catchUp() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        var old = AppState()
        old.lastCheck = Self.epoch.addingTimeInterval(-2 * 86_400)
        old.lastSuccess = old.lastCheck
        old.lastFetch = old.lastCheck
        let daemon = try VirtualDaemon(apps: Self.app("a", server), state: DaemonState(apps: ["a": old]), clock: clock, transport: server)
        await daemon.start()
        #expect(await daemon.status("a")?.nextCheckReason == "catch-up")
        await clock.advance(by: 3_600)
        let times = Self.fetches(server, "a")
        #expect(times.count == 1 && abs(times[0] - Self.phaseOfA * 3_600) < 1e-6, "\(times)")
        await Self.end(daemon, server)
    }

    @Test("after a success, a daily app is checked at the same time of day, its phase, day after day")
    func schedulePhase() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("a", server), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 4 * 86_400)
        let times = Self.fetches(server, "a")
        // The first check at start (08:00), then one a day at 86,400 × phase
        // past midnight UTC (07:27:37), the first at least half a day on.
        #expect(times.count == 5, "\(times)")
        #expect(times.first == 0)
        let timeOfDay = Self.phaseOfA * 86_400
        let startOfDay = Self.epoch.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        for (index, time) in times.dropFirst().enumerated() {
            let expected = Double(index + 1) * 86_400 - startOfDay + timeOfDay
            #expect(abs(time - expected) < 1e-3, "check \(index + 1) at \(time), expected \(expected)")
        }
        await Self.end(daemon, server)
    }

    @Test("a failing server is retried after 1, 2, 4 … minutes (with the jitter at 1), capped at an hour; a success ends the retries")
    func retryBackoff() async throws {
        let (clock, server) = try await Self.stage { _ in MemoryTransport.Answer.status(500) }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("a", server), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 60 + 120 + 240 + 480 + 960 + 1_920 + 3_600 + 3_600)
        let times = Self.fetches(server, "a")
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps == [60, 120, 240, 480, 960, 1_920, 3_600, 3_600], "\(times)")
        #expect(await daemon.status("a")?.consecutiveFailures == 9)
        #expect(daemon.record.count("a: check failed: HTTP 500") == 9)
        server.answer { _ in Self.body("2.0") }
        await clock.advance(by: 3_600)
        let after = await daemon.status("a")
        #expect(after?.consecutiveFailures == 0 && after?.status == "update-available" && after?.nextCheckReason == "schedule", "\(String(describing: after))")
        await Self.end(daemon, server)
    }

    @Test("the jitter shortens each retry: at 0, half the delay")
    func retryJitter() async throws {
        let (clock, server) = try await Self.stage { _ in MemoryTransport.Answer.status(500) }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("a", server), jitter: 0, clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 30 + 60 + 120)
        #expect(Self.fetches(server, "a") == [0, 30, 90, 210])
        await Self.end(daemon, server)
    }

    @Test("a Retry-After of two hours holds the next try back, and is kept across a restart")
    func retryAfterPersisted() async throws {
        let (clock, server) = try await Self.stage { _ in
            MemoryTransport.Answer.retry(503, after: 7_200)
        }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("a", server), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 1)
        let status = await daemon.status("a")
        #expect(status?.nextCheckReason == "retry-after")
        #expect(status?.nextCheck == Self.epoch.addingTimeInterval(7_200))
        let written = await daemon.stateFile
        #expect(written?.apps["a"]?.retryNotBefore == Self.epoch.addingTimeInterval(7_200), "in the state file")
        await clock.advance(by: 3_600)
        try await daemon.restart()
        #expect(await daemon.status("a")?.nextCheck == Self.epoch.addingTimeInterval(7_200), "kept across the restart")
        server.answer { _ in Self.body("1.0") }
        await clock.advance(to: Self.epoch.addingTimeInterval(7_199))
        #expect(Self.fetches(server, "a") == [0], "nothing before the server's time")
        await clock.advance(by: 1)
        #expect(Self.fetches(server, "a") == [0, 7_200])
        await Self.end(daemon, server)
    }

    @Test("within min-interval-seconds of the last fetch, Check answers from the stored result without a request")
    func minimumInterval() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0\nmin-interval-seconds = 300", apps: Self.app("a", server), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        #expect(Self.fetches(server, "a") == [0])
        _ = await daemon.service.checkNow("a")
        await clock.advance(by: 299)
        _ = await daemon.service.checkNow("a")
        #expect(Self.fetches(server, "a") == [0], "inside the interval")
        await clock.advance(by: 1)
        let answered = await daemon.service.checkNow("a")
        #expect(answered?.first?.status == .upToDate)
        #expect(Self.fetches(server, "a") == [0, 300])
        await Self.end(daemon, server)
    }

    @Test("a reload keeps the plans of apps whose settings did not change, and plans anew the changed")
    func reloadKeepsPlans() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let daemon = try VirtualDaemon(apps: Self.app("a", server) + Self.app("b", server, extra: "query = { x = \"1\" }"), clock: clock, transport: server)
        await daemon.start()
        let before = await daemon.status("b")?.nextCheck
        await clock.advance(by: 100)
        try daemon.edit("x = \"1\"", "x = \"2\"")
        try await daemon.service.reload()
        let after = await daemon.status("b")?.nextCheck
        #expect(after != nil && after != before, "b planned anew from the reload: \(String(describing: before)) → \(String(describing: after))")
        await clock.advance(by: 600)
        let a = Self.fetches(server, "a")
        #expect(a.count == 1 && abs(a[0] - Self.phaseOfA * 600) < 1e-6, "a kept its first-check time: \(a)")
        let b = Self.fetches(server, "b")
        #expect(b.count == 1 && b[0] > 100 && b[0] <= 700, "\(b)")
        await Self.end(daemon, server)
    }

    @Test("reloads called together all run, one at a time, in turn: the others wait while one is under way")
    func serializedReloads() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let daemon = try VirtualDaemon(apps: Self.app("a", server), clock: clock, transport: server)
        await daemon.start()
        let service = daemon.service
        try daemon.edit("version = \"1.0\"", "version = \"1.1\"")
        // The test takes the reload turn first, so that the ten queue behind
        // it however the machine schedules them (sampling a busy machine
        // could miss every reload under way).
        await service.enterReloadTurn()
        let reloads = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 { group.addTask { try await service.reload() } }
                try await group.waitForAll()
            }
        }
        while await service.reloadsUnderWay().waiting < 10 { await Task.yield() }
        let queued = await service.reloadsUnderWay()
        #expect(queued.running == 1 && queued.waiting == 10, "\(queued)")
        #expect(daemon.record.count("configuration reloaded") == 0, "none ran while the turn was taken")
        await service.leaveReloadTurn()
        try await reloads.value
        #expect(daemon.record.count("configuration reloaded: 1 apps") == 10)
        let after = await service.reloadsUnderWay()
        #expect(after.running == 0 && after.waiting == 0)
        await Self.end(daemon, server)
    }

    @Test("a phased offer flips at its offerAt by the timer, with one fetch in all")
    func phasedOfferFlips() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("2.0") }
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0\nrollout-position = 0.5", apps: Self.app("a", server, extra: "phased-rollout-seconds = 7200"), clock: clock, transport: server
        )
        await daemon.start()
        await clock.advance(by: 0)
        let pending = await daemon.status("a")
        #expect(pending?.status == "up-to-date" && pending?.pendingVersion == "2.0", "\(String(describing: pending))")
        #expect(pending?.offerAt == Self.epoch.addingTimeInterval(3_600))
        await clock.advance(by: 3_599)
        #expect(await daemon.status("a")?.pendingVersion == "2.0", "not before its time")
        await clock.advance(by: 1)
        let offered = await daemon.status("a")
        #expect(offered?.status == "update-available" && offered?.pendingVersion == nil, "\(String(describing: offered))")
        #expect(Self.fetches(server, "a") == [0], "one fetch in all")
        let entry = daemon.record.entries.first { $0.message.contains("(phased rollout: offered here from 2027-01-15T09:00:00Z)") }
        #expect(entry?.metadata["SSVC_PHASED_OFFER_AT"] == "2027-01-15T09:00:00Z", "\(daemon.record.messages)")
        #expect(daemon.record.notifications.last == "STATUS=1 apps: 1 update-available", "\(daemon.record.notifications)")
        await clock.advance(by: 1)
        let written = await daemon.stateFile
        #expect(written?.apps["a"]?.pending == nil, "the state file follows within a second")
        await Self.end(daemon, server)
    }

    @Test("changes are written within a second, all at once: one batch for three checks")
    func writeBatching() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: ["a", "b", "c"].map { Self.app($0, server) }.joined(), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        #expect(server.requests.count == 3)
        let notYet = await daemon.stateFile
        #expect(notYet == nil, "not written at once")
        #expect(clock.deadlines.filter { $0 == Self.epoch.addingTimeInterval(StateWriter.writeDelay) }.count == 1, "one batch: \(clock.deadlines)")
        await clock.advance(by: 0.999)
        let stillNot = await daemon.stateFile
        #expect(stillNot == nil)
        await clock.advance(by: 0.001)
        let written = await daemon.stateFile
        #expect(written?.apps.keys.sorted() == ["a", "b", "c"])
        await Self.end(daemon, server)
    }

    @Test("a state file that cannot be written is said once, tried again after 15, 30, 60 s, and its recovery said once")
    func failedWriteRetried() async throws {
        let (clock, server) = try await Self.stage { _ in Self.body("1.0") }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("a", server), clock: clock, transport: server)
        // A folder where the file goes: every rename onto it fails, even for root.
        try FileManager.default.createDirectory(atPath: daemon.statePath, withIntermediateDirectories: false)
        await daemon.start()
        await clock.advance(by: 1)
        // Writes run off the executor: the retry is planned when one ends.
        await daemon.service.writesSettled()
        let failure = "cannot save the state, keeping it in memory"
        #expect(daemon.record.count(failure) == 1)
        var retries: [Double] = []
        for _ in 0..<3 {
            let next = try #require(clock.deadlines.first { $0 < Self.epoch.addingTimeInterval(3_600) })
            retries.append(next.timeIntervalSince(Self.epoch))
            await clock.advance(to: next)
            await daemon.service.writesSettled()
        }
        #expect(retries == [16, 46, 106], "15, 30, 60 s apart")
        _ = await daemon.service.checkNow("a")
        #expect(daemon.record.count(failure) == 1, "said once: \(daemon.record.messages)")
        try FileManager.default.removeItem(atPath: daemon.statePath)
        await clock.advance(by: 120)
        await daemon.service.writesSettled()
        #expect(daemon.record.count("state written again to") == 1)
        let written = await daemon.stateFile
        #expect(written?.apps["a"]?.lastSuccess == Self.epoch.addingTimeInterval(106), "the Check at 106 s")
        #expect(clock.deadlines.allSatisfy { $0 > Self.epoch.addingTimeInterval(3_600) }, "no retry left: \(clock.deadlines)")
        await Self.end(daemon, server)
    }
}
