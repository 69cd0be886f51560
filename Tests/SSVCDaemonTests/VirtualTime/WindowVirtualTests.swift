import Foundation
import SSVCControl
import SSVCCore
@testable import SSVCDaemon
import Testing

/// Offer windows in the check service (SPEC §16), on a manual clock: the
/// wait shown and journaled once, the offer made by a timer at its instant
/// with no fetch, nothing repeated by a restart, a reload that moves it.
///
/// The time limit is a guard against a hang, not a speed bound (issue 49).
@Suite("offer windows in virtual time", .timeLimit(.minutes(10)))
struct WindowVirtualTests {
    typealias Stage = VirtualTimeTests
    /// 2027-01-15T08:00:00Z, a Friday.
    static let epoch = VirtualDaemon.epoch

    @Test("a new version waits for its window: shown and journaled once, offered by its timer without a fetch, kept across a restart")
    func waitsForItsWindow() async throws {
        let (clock, server) = try await Stage.stage { _ in Stage.body("2.0") }
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0\nrollout-position = 0.5",
            apps: Stage.app("a", server, schedule: "weekly", extra: #"offer-windows = [ { days = ["Sat"], start = "23:30", minutes = 60 } ]"#),
            clock: clock, transport: server
        )
        await daemon.start()
        await clock.advance(by: 0)
        let waiting = try #require(await daemon.service.status(of: "a")?.first)
        // Saturday 23:30 plus half of the hour, for the machine at 0.5.
        #expect(waiting.status == .upToDate && waiting.pendingVersion == "2.0")
        #expect(waiting.offerAt == "2027-01-17T00:00:00Z")
        #expect(waiting.nextWindow == AppStatus.Window(start: "2027-01-16T23:30:00Z", end: "2027-01-17T00:30:00Z"))
        let wait = daemon.record.entries.filter { $0.metadata["MESSAGE_ID"] == MessageID.offerWindow.rawValue }
        #expect(wait.count == 1, "\(daemon.record.messages)")
        #expect(wait.first?.metadata["SSVC_WINDOW_START"] == "2027-01-16T23:30:00Z")
        #expect(wait.first?.message.contains("a: 2.0 waits for the offer window from 2027-01-16T23:30:00Z to 2027-01-17T00:30:00Z (UTC)") == true)
        #expect(clock.deadlines.contains(RFC3339.parse("2027-01-17T00:00:00Z")!), "one timer at the offer instant: \(clock.deadlines)")

        // A restart neither says it again nor moves it.
        try await daemon.restart()
        await clock.advance(by: 0)
        #expect(await daemon.service.status(of: "a")?.first?.offerAt == "2027-01-17T00:00:00Z")
        #expect(daemon.record.entries.filter { $0.metadata["MESSAGE_ID"] == MessageID.offerWindow.rawValue }.count == 1)

        let fetches = server.requests.count
        await clock.advance(to: RFC3339.parse("2027-01-16T23:59:59Z")!)
        #expect(await daemon.service.status(of: "a")?.first?.status == .upToDate, "a second before its time")
        await clock.advance(to: RFC3339.parse("2027-01-17T00:00:00Z")!)
        let offered = try #require(await daemon.service.status(of: "a")?.first)
        #expect(offered.status == .updateAvailable && offered.pendingVersion == nil && offered.nextWindow == nil)
        #expect(server.requests.count == fetches, "the timer made the offer, not a fetch")
        #expect(daemon.record.count("update available: 1.0 → 2.0 (phased rollout: offered here from 2027-01-17T00:00:00Z)") == 1)
        // Past the window, the offer made stays.
        await clock.advance(to: RFC3339.parse("2027-01-18T09:00:00Z")!)
        #expect(await daemon.service.status(of: "a")?.first?.status == .updateAvailable)
        await Stage.end(daemon, server)
    }

    @Test("a machine off through its window is not offered when it starts again: the next window takes it")
    func offThroughTheWindow() async throws {
        let (clock, server) = try await Stage.stage { _ in Stage.body("2.0") }
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0\nrollout-position = 0",
            apps: Stage.app("a", server, schedule: "weekly", extra: #"offer-windows = [ { days = ["Sat", "Sun"], start = "23:30", minutes = 60 } ]"#),
            clock: clock, transport: server
        )
        await daemon.start()
        await clock.advance(by: 0)
        #expect(await daemon.service.status(of: "a")?.first?.offerAt == "2027-01-16T23:30:00Z")
        // Off from Saturday noon to Sunday 09:00: Saturday's window passes unseen.
        await clock.advance(to: RFC3339.parse("2027-01-16T12:00:00Z")!)
        await daemon.stop()
        await clock.advance(to: RFC3339.parse("2027-01-17T09:00:00Z")!)
        try await daemon.restart()
        await clock.advance(by: 0)
        let after = try #require(await daemon.service.status(of: "a")?.first)
        #expect(after.status == .upToDate && after.offerAt == "2027-01-17T23:30:00Z", "\(after)")
        #expect(after.nextWindow?.start == "2027-01-17T23:30:00Z")
        await clock.advance(to: RFC3339.parse("2027-01-17T23:30:00Z")!)
        #expect(await daemon.service.status(of: "a")?.first?.status == .updateAvailable)
        await Stage.end(daemon, server)
    }

    @Test("a reload that adds a window moves a waiting version to it; one that removes the windows offers it at once")
    func reloadMovesIt() async throws {
        let (clock, server) = try await Stage.stage { _ in Stage.body("2.0") }
        let window = #"offer-windows = [ { days = ["Sun"], start = "02:00", minutes = 120 } ]"#
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0\nrollout-position = 0\n" + window + "\nwindows-time-zone = \"UTC\"",
            apps: Stage.app("a", server, schedule: "weekly"), clock: clock, transport: server
        )
        await daemon.start()
        await clock.advance(by: 0)
        #expect(await daemon.service.status(of: "a")?.first?.offerAt == "2027-01-17T02:00:00Z")
        // The same window in New York: 02:00 EST is 07:00 UTC.
        try daemon.edit(#"windows-time-zone = "UTC""#, #"windows-time-zone = "America/New_York""#)
        try await daemon.service.reload()
        #expect(await daemon.service.status(of: "a")?.first?.offerAt == "2027-01-17T07:00:00Z")
        try daemon.edit(window, "")
        try daemon.edit(#"windows-time-zone = "America/New_York""#, "")
        try await daemon.service.reload()
        let open = try #require(await daemon.service.status(of: "a")?.first)
        #expect(open.status == .updateAvailable && open.pendingVersion == nil)
        await Stage.end(daemon, server)
    }
}
