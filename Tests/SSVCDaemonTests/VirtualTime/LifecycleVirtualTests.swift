import Foundation
import SSVCControl
import SSVCCore
@testable import SSVCDaemon
import Testing

/// End of life and restart pending (SPEC §15, issue 53) in the check
/// service on a manual clock: the state follows the dates by the daemon's
/// clock, with no new answer, and every output says each change once.
///
/// The time limit is a guard against a hang, not a speed bound (issue 49).
@Suite("lifecycle in virtual time", .timeLimit(.minutes(10)))
struct LifecycleVirtualTests {
    typealias Stage = VirtualTimeTests

    /// 2027-01-15T08:00:00Z.
    static let epoch = VirtualDaemon.epoch

    /// A release answer whose booleans were frozen long ago (all false):
    /// active support ends 2027-01-20, its end of life is 2027-06-30,
    /// extended support lasts to 2032-04-09.
    static let release = """
        {"schema_version":"1.2.0","generated_at":"2025-08-27T13:14:55+00:00","result":{"name":"22.04","codename":null,\
        "label":"22.04 \\u001b[2J'Jammy'","releaseDate":"2022-04-21","isLts":true,"ltsFrom":null,"isEoas":false,"eoasFrom":"2027-01-20",\
        "isEol":false,"eolFrom":"2027-06-30","isEoes":false,"eoesFrom":"2032-04-09","isMaintained":true,\
        "latest":{"name":"22.04.5","date":"2024-09-12","link":null},"custom":null}}
        """

    static func app(_ name: String, _ server: MemoryTransport, version: String = "22.04.5", extra: String = "") -> String {
        """
        [[app]]
        name = "\(name)"
        version = "\(version)"
        lifecycle = "endoflife"
        lifecycle-url = "\(server.url("/eol/{product}"))"
        lifecycle-max-age-days = 365
        \(extra)

        """
    }

    static func day(_ text: String) -> Date { EndOfLifeAnswer.parseDay(text)! }

    static func entries(_ daemon: VirtualDaemon, _ id: MessageID, app: String) -> [Record.Entry] {
        daemon.record.entries.filter { $0.metadata["MESSAGE_ID"] == id.rawValue && $0.metadata["SSVC_APP"] == app }
    }

    @Test("the dates decide by the daemon's clock: supported, security-only the day after eoasFrom, ending 90 days before, end of life the day after eolFrom; each said once")
    func followsTheClock() async throws {
        let (clock, server) = try await Stage.stage { path in path == "/eol/ubuntu" ? .document(Self.release, etag: "\"r1\"") : .status(404) }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("ubuntu", server), clock: clock, transport: server)
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        var status = try #require(await daemon.service.status(of: "ubuntu")?.first)
        #expect(status.lifecycle == .supported)
        #expect(status.lifecycleRelease == "22.04" && status.supportEnds == "2027-01-20" && status.endOfLife == "2027-06-30")
        #expect(status.status == .upToDate, "latest 22.04.5 is what runs")
        // The last day of active support is still supported; the next is not.
        await clock.advance(to: Self.day("2027-01-20").addingTimeInterval(86_399))
        #expect(try #require(await daemon.service.status(of: "ubuntu")?.first).lifecycle == .supported)
        await clock.advance(to: Self.day("2027-01-21").addingTimeInterval(43_200))
        #expect(try #require(await daemon.service.status(of: "ubuntu")?.first).lifecycle == .securityOnly)
        // 2027-06-30 less 90 days is 2027-04-01.
        await clock.advance(to: Self.day("2027-03-31").addingTimeInterval(43_200))
        #expect(try #require(await daemon.service.status(of: "ubuntu")?.first).lifecycle == .securityOnly)
        await clock.advance(to: Self.day("2027-04-01").addingTimeInterval(43_200))
        #expect(try #require(await daemon.service.status(of: "ubuntu")?.first).lifecycle == .ending)
        await clock.advance(to: Self.day("2027-06-30").addingTimeInterval(86_399))
        #expect(try #require(await daemon.service.status(of: "ubuntu")?.first).lifecycle == .ending, "eolFrom itself is still supported")
        await clock.advance(to: Self.day("2027-07-01").addingTimeInterval(43_200))
        status = try #require(await daemon.service.status(of: "ubuntu")?.first)
        #expect(status.lifecycle == .endOfLife)
        #expect(status.extendedUntil == "2032-04-09")
        // One answer read in full, the rest revalidated: the dates alone moved the state.
        let asked = server.requests.filter { $0.url == server.url("/eol/ubuntu") }.count
        #expect(asked > 100, "a daily check asks each day: \(asked)")
        let said = Self.entries(daemon, .lifecycle, app: "ubuntu").map { $0.metadata["SSVC_LIFECYCLE"] ?? "?" }
        #expect(said == ["supported", "security-only", "ending", "end-of-life"], "\(said)")
        let last = try #require(Self.entries(daemon, .lifecycle, app: "ubuntu").last)
        #expect(last.metadata["SSVC_END_OF_LIFE"] == "2027-06-30")
        #expect(last.message == "ubuntu: release 22.04 of 22.04.5 is past its end of life (2027-06-30); extended support until 2032-04-09")
        let metrics = try #require(await daemon.service.metricsApps().first)
        let samples = metrics.inputs["lifecycle"] ?? []
        #expect(samples.contains { $0.family == "ssvc_app_lifecycle" && $0.labels.first?.value == "end-of-life" && $0.value == "1" })
        #expect(samples.contains { $0.family == "ssvc_app_end_of_life_timestamp_seconds" && $0.value == "1814400000" })
        await Stage.end(daemon, server)
    }

    @Test("a restart of the daemon says nothing again: the state remembers what was said")
    func saidOnceAcrossRestarts() async throws {
        let (clock, server) = try await Stage.stage { _ in .document(Self.release) }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("ubuntu", server), clock: clock, transport: server)
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        #expect(Self.entries(daemon, .lifecycle, app: "ubuntu").count == 1)
        try await daemon.restart()
        _ = await daemon.service.checkNow(nil)
        #expect(Self.entries(daemon, .lifecycle, app: "ubuntu").count == 1)
        await Stage.end(daemon, server)
    }

    @Test("an app without url is update-available when its release has a newer version; with url, that is a note")
    func newerInRelease() async throws {
        let (clock, server) = try await Stage.stage { path in
            path.hasPrefix("/eol/") ? .document(Self.release) : Stage.body("22.04.2")
        }
        let apps = Self.app("bare", server, version: "22.04.2") + Self.app("served", server, version: "22.04.2", extra: "url = \"\(server.url("/served"))\"")
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: apps, clock: clock, transport: server)
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        let bare = try #require(await daemon.service.status(of: "bare")?.first)
        #expect(bare.status == .updateAvailable && bare.latestVersion == "22.04.5")
        #expect(bare.note?.contains("22.04.5 is the newest of release 22.04") == true, "\(bare.note ?? "")")
        let served = try #require(await daemon.service.status(of: "served")?.first)
        #expect(served.status == .upToDate && served.latestVersion == "22.04.2", "the version server decides")
        #expect(served.note?.contains("22.04.5 is the newest of release 22.04") == true, "\(served.note ?? "")")
        await Stage.end(daemon, server)
    }

    @Test("a failed read is a failed check that keeps the last release; an HTML page, a 40 MB answer and another schema are named")
    func failures() async throws {
        let (clock, server) = try await Stage.stage { _ in .document(Self.release) }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app("ubuntu", server), clock: clock, transport: server)
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        let url = server.url("/eol/ubuntu")
        let cases: [(MemoryTransport.Answer, String)] = [
            (.document("<html><body>502 Bad Gateway</body></html>"), "the answer: document: not valid JSON"),
            (.document(String(repeating: " ", count: 40 << 20)), "larger than the 2097152 bytes an end-of-life answer may have"),
            (.document(#"{"schema_version":"2.0.0","result":{}}"#), "schema_version: '2.0.0' is not a version of API v1's schema"),
            (.status(500), "HTTP 500"),
        ]
        for (index, (answer, expected)) in cases.enumerated() {
            server.answer(url, answer)
            _ = await daemon.service.checkNow(nil)
            let status = try #require(await daemon.service.status(of: "ubuntu")?.first)
            #expect(status.consecutiveFailures == index + 1)
            #expect(status.lastError?.contains(expected) == true, "\(status.lastError ?? "nil")")
            #expect(status.lifecycle == .supported && status.lifecycleRelease == "22.04", "the last good release is kept")
            #expect(status.note?.contains("end of life not read (\(index + 1) in a row): the release read ") == true, "\(status.note ?? "")")
        }
        server.answer(url, .document(Self.release))
        _ = await daemon.service.checkNow(nil)
        #expect(try #require(await daemon.service.status(of: "ubuntu")?.first).consecutiveFailures == 0)
        await Stage.end(daemon, server)
    }

    @Test("a reload that changes lifecycle-release shows no stale release and reads anew, validators not sent; an upgrade whose read fails is unknown (found by attack)")
    func settingsAndUpgrade() async throws {
        let answer = #"{"result":{"releases":[{"name":"1.2","eolFrom":"2020-01-01"},{"name":"1.3","eolFrom":"2099-01-01"}]}}"#
        let (clock, server) = try await Stage.stage { _ in .document(answer, etag: "\"e1\"") }
        let versions = MemoryVersions("1.2.3")
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0", apps: Self.app("app", server, extra: #"lifecycle-release = "1.2""#), clock: clock,
            transport: server, versions: versions
        )
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        #expect(try #require(await daemon.service.status(of: "app")?.first).lifecycle == .endOfLife)
        try daemon.edit(#"lifecycle-release = "1.2""#, #"lifecycle-release = "1.3""#)
        try await daemon.service.reload()
        var status = try #require(await daemon.service.status(of: "app")?.first)
        #expect(status.lifecycle == .unknown && status.lifecycleRelease == nil, "\(String(describing: status.lifecycle))")
        #expect(status.note?.contains("not read since lifecycle-url, -product or -release changed") == true, "\(status.note ?? "")")
        let before = server.requests.count
        _ = await daemon.service.checkNow(nil)
        status = try #require(await daemon.service.status(of: "app")?.first)
        #expect(status.lifecycle == .supported && status.lifecycleRelease == "1.3", "read in full, not answered 304")
        #expect(server.requests.count == before + 1)
        // An upgrade to 1.4.0 whose read then fails: not release 1.3's verdict.
        versions.set("1.4.0")
        server.answer(server.url("/eol/app"), .status(500))
        _ = await daemon.service.checkNow(nil)
        status = try #require(await daemon.service.status(of: "app")?.first)
        #expect(status.currentVersion == "1.4.0")
        #expect(status.lifecycle == .unknown && status.lifecycleRelease == nil)
        #expect(status.note?.contains("not read for the running version 1.4.0 yet (the last read was for 1.2.3)") == true, "\(status.note ?? "")")
        await Stage.end(daemon, server)
    }

    @Test("a version that matches no release is unknown, and says why; lifecycle-release names one")
    func unmatched() async throws {
        let (clock, server) = try await Stage.stage { _ in .document(Self.release) }
        let apps = Self.app("other", server, version: "24.04.1") + Self.app("named", server, version: "24.04.1", extra: #"lifecycle-release = "22.04""#)
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: apps, clock: clock, transport: server)
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        let other = try #require(await daemon.service.status(of: "other")?.first)
        #expect(other.lifecycle == .unknown)
        #expect(other.note?.contains("the answer is of release 22.04, not of 24.04.1") == true, "\(other.note ?? "")")
        #expect(try #require(await daemon.service.status(of: "named")?.first).lifecycle == .supported)
        await Stage.end(daemon, server)
    }
}

@Suite("restart pending in virtual time", .timeLimit(.minutes(10)))
struct RestartPendingVirtualTests {
    typealias Stage = VirtualTimeTests

    static let installed = VersionSource.file("/virtual/installed")

    static func app(_ server: MemoryTransport) -> String {
        """
        [[app]]
        name = "agent"
        url = "\(server.url("/agent"))"
        version = "1.0"
        installed-version-file = "/virtual/installed"
        restart-pending-critical-days = 7

        """
    }

    @Test("pending when installed and running differ, said once when it starts and once when it ends; since kept across restarts; overdue after 7 days")
    func pendingAndCleared() async throws {
        let (clock, server) = try await Stage.stage { _ in Stage.body("2.0") }
        let versions = MemoryVersions("1.0")
        versions.set("1.0", for: Self.installed)
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0", apps: Self.app(server), clock: clock, transport: server, versions: versions
        )
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        var status = try #require(await daemon.service.status(of: "agent")?.first)
        #expect(status.restartPending == nil)
        #expect(LifecycleVirtualTests.entries(daemon, .restartPending, app: "agent").isEmpty, "nothing to say while none was ever pending")
        // The package is upgraded: 2.0 installed, 1.0 still runs.
        versions.set("2.0", for: Self.installed)
        await clock.advance(by: 3_600)
        let upgradedAt = clock.now
        _ = await daemon.service.checkNow(nil)
        status = try #require(await daemon.service.status(of: "agent")?.first)
        #expect(status.restartPending == AppStatus.RestartPending(installed: "2.0", running: "1.0", since: RFC3339.format(upgradedAt), overdue: false))
        #expect(status.status == .updateAvailable, "the status stays about the running version")
        var said = LifecycleVirtualTests.entries(daemon, .restartPending, app: "agent")
        #expect(said.map(\.message) == ["agent: restart pending: 2.0 is installed, 1.0 runs"])
        #expect(said.first?.metadata["SSVC_INSTALLED_VERSION"] == "2.0")
        // ssvcd restarts: since is kept, nothing is said again.
        try await daemon.restart()
        await clock.advance(by: 86_400)
        _ = await daemon.service.checkNow(nil)
        status = try #require(await daemon.service.status(of: "agent")?.first)
        #expect(status.restartPending?.since == RFC3339.format(upgradedAt))
        #expect(LifecycleVirtualTests.entries(daemon, .restartPending, app: "agent").count == 1)
        // Seven days on, overdue.
        await clock.advance(to: upgradedAt.addingTimeInterval(7 * 86_400))
        #expect(try #require(await daemon.service.status(of: "agent")?.first).restartPending?.overdue == true)
        let samples = await daemon.service.metricsApps().first?.inputs["restart"] ?? []
        #expect(samples == [MetricSample(family: "ssvc_app_restart_pending", labels: [], value: "1")])
        // The service restarts on 2.0: no restart pending, said once.
        versions.set("2.0")
        _ = await daemon.service.checkNow(nil)
        status = try #require(await daemon.service.status(of: "agent")?.first)
        #expect(status.restartPending == nil)
        said = LifecycleVirtualTests.entries(daemon, .restartPending, app: "agent")
        #expect(said.map(\.message).last == "agent: no restart pending: 2.0 runs, 2.0 was installed", "\(said.map(\.message))")
        #expect(said.last?.metadata["SSVC_INSTALLED_VERSION"] == nil)
        _ = await daemon.service.checkNow(nil)
        #expect(LifecycleVirtualTests.entries(daemon, .restartPending, app: "agent").count == 2)
        await Stage.end(daemon, server)
    }

    @Test("an installed version that cannot be read is a failed check; the last comparison is kept")
    func unreadable() async throws {
        let (clock, server) = try await Stage.stage { _ in Stage.body("1.0") }
        let versions = MemoryVersions("1.0")
        versions.set("1.1", for: Self.installed)
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0", apps: Self.app(server), clock: clock, transport: server, versions: versions
        )
        await daemon.start()
        _ = await daemon.service.checkNow(nil)
        versions.set(nil, for: Self.installed)
        _ = await daemon.service.checkNow(nil)
        let status = try #require(await daemon.service.status(of: "agent")?.first)
        #expect(status.consecutiveFailures == 1)
        #expect(status.lastError?.contains("installed version: version-file /virtual/installed: cannot be read") == true, "\(status.lastError ?? "nil")")
        #expect(status.restartPending?.installed == "1.1", "the last comparison is kept")
        await Stage.end(daemon, server)
    }
}
