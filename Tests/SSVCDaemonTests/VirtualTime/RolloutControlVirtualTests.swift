import Foundation
import SSVCControl
import SSVCCore
@testable import SSVCDaemon
import NIOConcurrencyHelpers
import Testing

/// Rollout control in the check service, on a manual clock against a
/// version server in memory whose document the test changes: the publisher's cap,
/// holds set and lifted, and limits put in force by a reload.
///
/// The time limit is a guard against a hang, not a speed bound: each of these
/// tests' awaits queues behind every other test's work on the pool (one
/// thread per core), which under ThreadSanitizer beside a busy machine
/// is a minute or more (issue 49).
@Suite("rollout control in virtual time", .timeLimit(.minutes(10)))
struct RolloutControlVirtualTests {
    typealias Stage = VirtualTimeTests
    static let epoch = VirtualDaemon.epoch
    static let hour: TimeInterval = 3_600

    /// A document the test changes between checks.
    final class Document: Sendable {
        private let text = NIOLockedValueBox(#"{"SSVCLatestVersionKey":"2.0"}"#)
        func set(_ body: String) { text.withLockedValue { $0 = body } }
        var reply: MemoryTransport.Answer { .document(text.withLockedValue { $0 }) }
    }

    static func hourly(_ name: String, _ server: MemoryTransport, extra: String = "") -> String {
        Stage.app(name, server, schedule: "hourly", extra: extra)
    }

    @Test("the cap stops the rollout where it stands, 0 pauses it, raising it resumes it; an offer made stays, across a restart")
    func capStopsPausesResumes() async throws {
        let document = Document()
        let (clock, server) = try await Stage.stage { _ in document.reply }
        // Position 0.5 of a 2-hour window: offered here from T + 1 h, once the cap allows.
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0\nrollout-position = 0.5", apps: Self.hourly("a", server, extra: "phased-rollout-seconds = 7200"),
            clock: clock, transport: server
        )
        func check(_ cap: String) async throws -> AppStatus {
            document.set(#"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutPercentage":\#(cap)}"#)
            return try #require(await daemon.service.checkNow("a")?.first)
        }
        document.set(#"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutPercentage":30}"#)
        await daemon.start()
        await clock.advance(by: 0)
        let stopped = try #require(await daemon.service.status(of: "a")?.first)
        #expect(stopped.status == .upToDate && stopped.pendingVersion == "2.0")
        #expect(stopped.offerAt == nil && stopped.offerAtPercentage == 50 && stopped.rolloutPercentage == 30)
        #expect(!clock.deadlines.contains(Self.epoch.addingTimeInterval(Self.hour)), "no timer for a capped offer: \(clock.deadlines)")
        #expect(daemon.record.count("2.0 phased: waiting for the rollout to pass 50 %") == 1, "\(daemon.record.messages)")
        let entry = daemon.record.entries.last { $0.message.contains("waiting for the rollout") }
        #expect(entry?.metadata["SSVC_ROLLOUT_PERCENTAGE"] == "30.0" && entry?.metadata["SSVC_PHASED_OFFER_AT"] == nil)
        await clock.advance(by: Self.hour)
        #expect(await daemon.service.status(of: "a")?.first?.status == .upToDate, "its time came, the cap still holds it")

        #expect(try await check("0").status == .upToDate, "paused")
        let resumed = try await check("60")
        #expect(resumed.status == .updateAvailable && resumed.pendingVersion == nil, "resumed past 50 %")
        #expect(try await check("0").status == .updateAvailable, "paused again: the offer made stays")
        try await daemon.restart()
        #expect(await daemon.service.status(of: "a")?.first?.status == .updateAvailable, "and after a restart")

        let rejected = try await check("1e400")
        #expect(rejected.status == .updateAvailable && rejected.consecutiveFailures == 1, "a bad cap keeps the last good decision")
        #expect(rejected.lastError?.contains("SSVCPhasedRolloutPercentage: 1e400 is not a percentage from 0 to 100") == true,
                "\(rejected.lastError ?? "")")
        #expect(server.requests.count == 5, "one fetch per check, none for the cap alone")
        await Stage.end(daemon, server)
    }

    @Test("a hold keeps the version back without a fetch, is journaled, survives a restart; a required update shows through it")
    func holdSurvivesAndYields() async throws {
        let document = Document()
        let (clock, server) = try await Stage.stage { _ in document.reply }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.hourly("a", server), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        #expect(await daemon.service.status(of: "a")?.first?.status == .updateAvailable)

        let held = try await daemon.service.hold("a", at: nil, caller: 1000)
        #expect(held.status == .upToDate && held.hold == "1.0" && held.heldVersion == "2.0" && held.heldBy == "hold")
        #expect(held.holdSince == RFC3339.format(Self.epoch) && held.heldSince == RFC3339.format(Self.epoch))
        #expect(server.requests.count == 1, "a hold fetches nothing")
        #expect(daemon.stateFileNow?.apps["a"]?.hold?.version == "1.0", "on disk before the call answers: a crash the next moment keeps it")
        let set = daemon.record.entries.first { $0.message == "a: held at 1.0 (by uid 1000): nothing newer is offered until ssvcctl unhold a" }
        #expect(set?.metadata["MESSAGE_ID"] == MessageID.holdChanged.rawValue && set?.metadata["SSVC_CALLER_UID"] == "1000")
        let kept = daemon.record.entries.filter { $0.message.hasPrefix("a: 2.0 kept back by the hold at 1.0") }
        #expect(kept.count == 1 && kept.first?.metadata["MESSAGE_ID"] == MessageID.versionHeld.rawValue, "\(daemon.record.messages)")
        #expect(daemon.record.notifications.last == "STATUS=1 apps: 1 up-to-date, 1 held")

        try await daemon.restart()
        _ = await daemon.service.checkNow("a")
        let after = try #require(await daemon.service.status(of: "a")?.first)
        #expect(after.status == .upToDate && after.hold == "1.0" && after.heldVersion == "2.0", "kept across a restart and a check")
        #expect(daemon.record.messages.filter { $0.hasPrefix("a: 2.0 kept back") }.count == 1, "said once, not at every check")

        document.set(#"{"SSVCLatestVersionKey":"2.0","SSVCUpdateRequired":true}"#)
        _ = await daemon.service.checkNow("a")
        let required = try #require(await daemon.service.status(of: "a")?.first)
        #expect(required.status == .updateRequired && required.heldVersion == nil && required.hold == "1.0")
        #expect(required.note == "required: the hold at 1.0 does not defer it")
        #expect(daemon.record.count("a: update required: 1.0 → 2.0 (required: the hold at 1.0 does not defer it)") == 1)

        document.set(#"{"SSVCLatestVersionKey":"2.0"}"#)
        _ = await daemon.service.checkNow("a")
        #expect(await daemon.service.status(of: "a")?.first?.heldVersion == "2.0")
        let lifted = try #require(await daemon.service.unhold("a", caller: 0))
        #expect(daemon.stateFileNow?.apps["a"]?.hold == nil, "lifted on disk before the call answers")
        #expect(lifted.status == .updateAvailable && lifted.hold == nil && lifted.heldVersion == nil)
        #expect(daemon.record.count("a: hold at 1.0 lifted (by uid 0)") == 1)
        #expect(daemon.record.count("a: 2.0 no longer kept back (hold); status update-available") == 1)
        await clock.advance(by: 1)
        let written = await daemon.stateFile
        #expect(written?.apps["a"]?.hold == nil && written?.apps["a"]?.held == nil)
        await Stage.end(daemon, server)
    }

    @Test("hold: a named version, no such app, a version the scheme cannot read, no running version known yet")
    func holdRefusals() async throws {
        let (clock, server) = try await Stage.stage { _ in VirtualTimeTests.body("2.0") }
        let commanded = Self.hourly("c", server, extra: #"version-command = ["/bin/echo", "1.0"]"#).replacingOccurrences(of: "version = \"1.0\"\n", with: "")
        let daemon = try VirtualDaemon(
            apps: Self.hourly("a", server) + Self.hourly("b", server, extra: "version-scheme = \"semver\"").replacingOccurrences(of: "\"1.0\"", with: "\"1.0.0\"")
                + commanded,
            clock: clock, transport: server
        )
        await daemon.start()
        await #expect(throws: CheckService.HoldRefusal.self) { try await daemon.service.hold("nope", at: nil, caller: nil) }
        #expect(await daemon.service.unhold("nope", caller: nil) == nil)
        do {
            _ = try await daemon.service.hold("c", at: nil, caller: nil)
            Issue.record("a hold without a version before any check ran the command")
        } catch let .cannot(reason) {
            #expect(reason.hasPrefix("the running version of c is not known yet"), "\(reason)")
        } catch {
            Issue.record("\(error)")
        }
        let configured = try await daemon.service.hold("b", at: nil, caller: nil)
        #expect(configured.hold == "1.0.0", "a configured version is known before any check")
        do {
            _ = try await daemon.service.hold("b", at: "1.x", caller: nil)
            Issue.record("1.x held under semver")
        } catch let .cannot(reason) {
            #expect(reason.contains("'1.x' is not a valid semver version"), "\(reason)")
        } catch {
            Issue.record("\(error)")
        }
        let named = try await daemon.service.hold("a", at: "1.5", caller: nil)
        #expect(named.hold == "1.5" && named.heldVersion == nil, "nothing to keep back before a check")
        await clock.advance(by: 600)
        #expect(await daemon.service.status(of: "a")?.first?.heldVersion == "2.0", "the first check keeps 2.0 back")
        await Stage.end(daemon, server)
    }

    @Test("max-version and ignore-versions put in force by a reload keep back at once, and let go when the server moves past")
    func limitsByReload() async throws {
        let document = Document()
        let (clock, server) = try await Stage.stage { _ in document.reply }
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.hourly("a", server, extra: "# limits"), clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        try daemon.edit("# limits", #"max-version = "1.9""#)
        try await daemon.service.reload()
        let capped = try #require(await daemon.service.status(of: "a")?.first)
        #expect(capped.status == .upToDate && capped.heldBy == "max-version" && capped.heldVersion == "2.0")
        #expect(daemon.record.count("a: 2.0 kept back by max-version 1.9") == 1, "\(daemon.record.messages)")
        try daemon.edit(#"max-version = "1.9""#, #"ignore-versions = ["2.0.0"]"#)
        try await daemon.service.reload()
        #expect(await daemon.service.status(of: "a")?.first?.heldBy == "ignore-versions")
        #expect(server.requests.count == 1, "the reloads fetched nothing")
        document.set(#"{"SSVCLatestVersionKey":"2.0.1"}"#)
        let past = try #require(await daemon.service.checkNow("a")?.first)
        #expect(past.status == .updateAvailable && past.latestVersion == "2.0.1" && past.heldVersion == nil)
        await Stage.end(daemon, server)
    }

    @Test("a hold that cannot apply under the app's scheme (edited in the state file, or the scheme changed) is lifted at start or reload, and said")
    func invalidHoldsLifted() async throws {
        let (clock, server) = try await Stage.stage { _ in VirtualTimeTests.body("2.0") }
        var state = DaemonState()
        var edited = AppState()
        edited.hold = Hold(version: "", since: Self.epoch)
        state.apps["a"] = edited
        var fine = AppState()
        fine.hold = Hold(version: "1.5", since: Self.epoch)
        state.apps["b"] = fine
        let daemon = try VirtualDaemon(apps: Self.hourly("a", server) + Self.hourly("b", server, extra: "# scheme"), state: state, clock: clock, transport: server)
        await daemon.start()
        #expect(await daemon.service.status(of: "a")?.first?.hold == nil)
        #expect(daemon.record.count("a: hold lifted: '' is not a valid dotted version: empty") == 1, "\(daemon.record.messages)")
        #expect(await daemon.service.status(of: "b")?.first?.hold == "1.5")
        try daemon.edit("# scheme", "version-scheme = \"semver\"")
        try daemon.edit("version = \"1.0\"\nversion-scheme", "version = \"1.0.0\"\nversion-scheme")
        try await daemon.service.reload()
        #expect(await daemon.service.status(of: "b")?.first?.hold == nil, "1.5 is no semver version")
        let lifted = daemon.record.entries.first { $0.message.hasPrefix("b: hold lifted: '1.5' is not a valid semver version") }
        #expect(lifted?.level == .warning && lifted?.metadata["MESSAGE_ID"] == MessageID.holdChanged.rawValue, "\(daemon.record.messages)")
        await Stage.end(daemon, server)
    }

    @Test("a hold outlives its app's absence from the configuration; holding again at the same version changes nothing; a configured version is held as configured now")
    func holdsKeptAndIdempotent() async throws {
        let (clock, server) = try await Stage.stage { _ in VirtualTimeTests.body("2.0") }
        let appB = Self.hourly("b", server)
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.hourly("a", server) + appB, clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        let first = try await daemon.service.hold("b", at: "1.5", caller: nil)
        await clock.advance(by: 60)
        let again = try await daemon.service.hold("b", at: "1.5", caller: nil)
        #expect(again.holdSince == first.holdSince && daemon.record.count("b: held at 1.5") == 1, "the same hold again is no new hold")

        try daemon.edit(appB, "")
        try await daemon.service.reload()
        #expect(daemon.record.count("b: no longer configured; its hold at 1.5 is kept for when it comes back") == 1, "\(daemon.record.messages)")
        try await daemon.restart()
        #expect(daemon.record.count("b: no longer configured") == 1, "said once, not at every start")
        try daemon.edit("[[app]]\nname = \"a\"", appB + "[[app]]\nname = \"a\"")
        try await daemon.service.reload()
        #expect(await daemon.service.status(of: "b")?.first?.hold == "1.5", "back with the app")
        _ = await daemon.service.checkNow("b")
        #expect(await daemon.service.status(of: "b")?.first?.heldVersion == "2.0")

        try daemon.edit("name = \"a\"\nurl = \"\(server.url("/a"))\"\nschedule = \"hourly\"\nversion = \"1.0\"",
                        "name = \"a\"\nurl = \"\(server.url("/a"))\"\nschedule = \"hourly\"\nversion = \"1.7\"")
        try await daemon.service.reload()
        #expect(try await daemon.service.hold("a", at: nil, caller: nil).hold == "1.7", "the configured version, not the one the last check read")
        await Stage.end(daemon, server)
    }

    @Test("unhold lifts the hold kept for an app no longer configured; then the name is no app at all (issue 52)")
    func unholdOfUnconfigured() async throws {
        let (clock, server) = try await Stage.stage { _ in VirtualTimeTests.body("2.0") }
        let appB = Self.hourly("b", server)
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.hourly("a", server) + appB, clock: clock, transport: server)
        await daemon.start()
        await clock.advance(by: 0)
        _ = try await daemon.service.hold("b", at: "1.5", caller: nil)
        try daemon.edit(appB, "")
        try await daemon.service.reload()
        let kept = await daemon.stateFile
        #expect(kept?.apps["b"]?.hold?.version == "1.5", "kept for when it comes back")

        let lifted = try #require(await daemon.service.unhold("b", caller: 1000))
        #expect(lifted.name == "b" && lifted.hold == nil && lifted.note == "not configured: its hold at 1.5 is lifted", "\(lifted)")
        #expect(daemon.stateFileNow?.apps["b"] == nil, "gone from disk before the call answers")
        let said = daemon.record.entries.first { $0.message == "b: hold at 1.5 lifted (by uid 1000); the app is not configured" }
        #expect(said?.metadata["MESSAGE_ID"] == MessageID.holdChanged.rawValue && said?.metadata["SSVC_CALLER_UID"] == "1000", "\(daemon.record.messages)")
        #expect(await daemon.service.unhold("b", caller: 1000) == nil, "no hold and no app: no such app")

        try daemon.edit("[[app]]\nname = \"a\"", appB + "[[app]]\nname = \"a\"")
        try await daemon.service.reload()
        #expect(await daemon.service.status(of: "b")?.first?.hold == nil, "back without the hold")
        await Stage.end(daemon, server)
    }
}
