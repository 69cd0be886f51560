import FoundationEssentials
@testable import SSVCCore
import Testing
import SSVCTestSupport

/// Phased offers as pure arithmetic: fixed clocks, fixed machines.
@Suite("phased rollout: when a newer version is offered on this machine")
struct PhasedRolloutTests {
    let running = RunningVersion(key: "1.0")
    let announced = utc("2027-01-15T08:00:00Z")
    let week: TimeInterval = 604_800
    let machine = "0f7bd3c1a2b84e6d9c5e0a1b2c3d4e5f"

    /// A document naming `version`, announced at `announced` unless nil.
    func document(
        _ version: String = "2.0", since: Date?? = .none, window: UInt64? = nil, minimum: UInt64? = nil
    ) throws -> Decision {
        var object = [#""SSVCLatestVersionKey":"\#(version)""#]
        if let since = since ?? announced { object.append(#""SSVCLatestVersionAvailableSince":\#(Int(since.timeIntervalSince1970))"#) }
        if let window { object.append(#""SSVCPhasedRolloutInterval":\#(window)"#) }
        if let minimum { object.append(#""SSVCMinimumSupportedVersionNumber":\#(minimum)"#) }
        return try SSVCResponse(parsing: Array("{\(object.joined(separator: ","))}".utf8)).decide(for: running)
    }

    func settings(window: TimeInterval? = 604_800, pinned: Double? = nil, app: String = "billing") -> PhasedRollout.Settings {
        PhasedRollout.Settings(app: app, window: window, pinnedPosition: pinned, machine: machine)
    }

    @Test("a pinned position offers the version at T + p × W, and holds it back until then")
    func pinnedOffer() throws {
        let rollout = settings(pinned: 0.5)
        let before = PhasedRollout.settle(try document(), settings: rollout, firstSeen: announced, offered: nil, now: announced.addingTimeInterval(3_600))
        let offer = try #require(before.pending)
        #expect(offer.version == "2.0")
        #expect(offer.offerAt == announced.addingTimeInterval(0.5 * week))
        #expect(before.decision.status == .upToDate)
        #expect(before.decision.latestVersion == nil)
        #expect(offer.decision.status == .updateAvailable)
        let justBefore = PhasedRollout.settle(try document(), settings: rollout, firstSeen: announced, offered: nil, now: offer.offerAt.addingTimeInterval(-1))
        #expect(justBefore.pending != nil)
        let at = PhasedRollout.settle(try document(), settings: rollout, firstSeen: announced, offered: nil, now: offer.offerAt)
        #expect(at.pending == nil)
        #expect(at.decision.status == .updateAvailable)
    }

    @Test("position 0 takes everything at once; a window whose end has passed is offered at once")
    func canaryAndLate() throws {
        let canary = PhasedRollout.settle(try document(), settings: settings(pinned: 0), firstSeen: announced, offered: nil, now: announced)
        #expect(canary.pending == nil && canary.decision.status == .updateAvailable)
        let late = PhasedRollout.settle(
            try document(), settings: settings(pinned: 1), firstSeen: announced, offered: nil, now: announced.addingTimeInterval(week)
        )
        #expect(late.pending == nil && late.decision.status == .updateAvailable)
    }

    @Test("a T in the future means not before T, even at position 0")
    func futureAnnouncement() throws {
        let future = announced.addingTimeInterval(86_400)
        let settled = PhasedRollout.settle(try document(since: future), settings: settings(pinned: 0), firstSeen: announced, offered: nil, now: announced)
        #expect(settled.pending?.offerAt == future)
        #expect(settled.decision.status == .upToDate)
    }

    @Test("without a date in the document, T is when this machine first saw the version")
    func firstSeenStarts() throws {
        let seen = announced.addingTimeInterval(7_200)
        let settled = PhasedRollout.settle(
            try document(since: .some(nil)), settings: settings(pinned: 0.25), firstSeen: seen, offered: nil, now: seen
        )
        #expect(settled.pending?.announcedAt == seen)
        #expect(settled.pending?.offerAt == seen.addingTimeInterval(0.25 * week))
    }

    @Test("a required update is never phased")
    func requiredBypass() throws {
        let required = try document(minimum: NumVersion.pack("1.5")!)
        #expect(required.status == .updateRequired)
        let settled = PhasedRollout.settle(required, settings: settings(pinned: 0.9), firstSeen: announced, offered: nil, now: announced)
        #expect(settled.pending == nil)
        #expect(settled.decision == required)
    }

    @Test("the app's window wins over the document's; without one the document's applies; 0 turns phasing off")
    func windows() throws {
        let published = try document(window: 86_400)
        let fromDocument = PhasedRollout.settle(published, settings: settings(window: nil, pinned: 0.5), firstSeen: announced, offered: nil, now: announced)
        #expect(fromDocument.pending?.offerAt == announced.addingTimeInterval(43_200))
        let fromApp = PhasedRollout.settle(published, settings: settings(window: 3_600, pinned: 0.5), firstSeen: announced, offered: nil, now: announced)
        #expect(fromApp.pending?.offerAt == announced.addingTimeInterval(1_800))
        let off = PhasedRollout.settle(published, settings: settings(window: 0, pinned: 0.5), firstSeen: announced, offered: nil, now: announced)
        #expect(off.pending == nil && off.decision.status == .updateAvailable)
        let none = PhasedRollout.settle(try document(), settings: settings(window: nil, pinned: 0.5), firstSeen: announced, offered: nil, now: announced)
        #expect(none.pending == nil)
    }

    @Test("the position is the same for the same machine, app and version, and drawn anew for a new version")
    func positions() {
        let first = PhasedRollout.position(machine: machine, app: "billing", version: "2.0")
        #expect(first == PhasedRollout.position(machine: machine, app: "billing", version: "2.0"))
        // Fixed across releases of ssvc: a change to the hash moves every machine.
        #expect(StableHash.mixed(machine + "\u{0}billing\u{0}2.0") == 0x15a6_9f95_148e_dfb0, "FNV-1a and SplitMix64's finalizer, computed independently")
        #expect(first != PhasedRollout.position(machine: machine, app: "billing", version: "2.1"))
        #expect(first != PhasedRollout.position(machine: machine, app: "payroll", version: "2.0"))
        #expect(first >= 0 && first < 1)
    }

    @Test("positions of 10,000 random machines are uniform: within 2 points of the straight line everywhere")
    func uniformPositions() {
        var generator = SplitMix64(seed: 29)
        var positions: [Double] = (0..<10_000).map { _ in
            let id = (0..<2).map { _ in String(generator.next(), radix: 16) }.joined()
            return PhasedRollout.position(machine: id, app: "billing", version: "2.0")
        }
        positions.sort()
        var largestGap = 0.0
        for (index, position) in positions.enumerated() {
            largestGap = max(largestGap, abs(Double(index) / 10_000 - position), abs(Double(index + 1) / 10_000 - position))
        }
        #expect(largestGap < 0.02, "largest gap \(largestGap)")
    }

    @Test("a machine is never offered a version before its time, and each new version re-draws it")
    func newVersionRedraws() throws {
        let rollout = settings()
        let two = PhasedRollout.settle(try document("2.0"), settings: rollout, firstSeen: announced, offered: nil, now: announced)
        let twoOne = PhasedRollout.settle(try document("2.1"), settings: rollout, firstSeen: announced, offered: nil, now: announced)
        // The positions and offer times, computed independently in Python
        // (FNV-1a, SplitMix64's finalizer, top 53 bits; T + p × W rounded
        // up to the whole second).
        #expect(two.pending?.position == 0.08457372083335757)
        #expect(twoOne.pending?.position == 0.17500434134445564)
        #expect(two.pending?.offerAt == utc("2027-01-15T22:12:31Z"))
        #expect(twoOne.pending?.offerAt == utc("2027-01-16T13:24:03Z"))
    }

    @Test("an offer already made is not withdrawn, and an older offer stays in force while a newer version waits")
    func offersStay() throws {
        let offered = try document("1.5")
        // The same version, its date moved later by the publisher: still offered.
        let moved = PhasedRollout.settle(
            try document("1.5", since: announced.addingTimeInterval(86_400)), settings: settings(pinned: 0.9), firstSeen: announced,
            offered: offered, now: announced
        )
        #expect(moved.pending == nil && moved.decision.status == .updateAvailable)
        // A newer version waits; 1.5 stays offered meanwhile.
        let newer = PhasedRollout.settle(try document("2.0"), settings: settings(pinned: 0.9), firstSeen: announced, offered: offered, now: announced)
        #expect(newer.pending?.version == "2.0")
        #expect(newer.decision.latestVersion == "1.5")
        #expect(newer.decision.status == .updateAvailable)
    }

    @Test("a state's pending offer is made at its time with no fetch, and survives a round trip through the state file")
    func stateFlip() throws {
        let body = #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":\#(Int(announced.timeIntervalSince1970))}"#
        let context = EvaluationContext(running: running, appID: "", locale: LocaleSettings(language: "en", country: ""), now: announced)
        let evaluation = try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context)
        let state = AppState().recording(
            .success(evaluation, body: body, etag: nil, fetched: true), running: running, at: announced, rollout: settings(pinned: 0.5)
        )
        let offer = try #require(state.pending)
        #expect(state.decision?.status == .upToDate)
        #expect(state.offering(at: offer.offerAt.addingTimeInterval(-1)) == nil)
        let made = try #require(state.offering(at: offer.offerAt))
        #expect(made.decision?.status == .updateAvailable && made.pending == nil)
        #expect(made.lastFetch == state.lastFetch)

        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let reloaded = try decoder.decode(AppState.self, from: try encoder.encode(state))
        #expect(reloaded.pending?.offerAt == offer.offerAt)
        #expect(reloaded.latestSeen == SeenVersion(version: "2.0", at: announced))

        // A second check of the same document keeps the same offer time.
        let again = state.recording(
            .success(evaluation, body: body, etag: nil, fetched: true), running: running, at: announced.addingTimeInterval(3_600),
            rollout: settings(pinned: 0.5)
        )
        #expect(again.pending?.offerAt == offer.offerAt)
    }

    @Test("an offer first seen at a fraction of a second settles again after a restart to the very time stored: nothing to rewrite")
    func wholeSecondOffers() throws {
        let seenAt = announced.addingTimeInterval(0.731)
        let body = #"{"SSVCLatestVersionKey":"2.0"}"#
        let context = EvaluationContext(running: running, appID: "", locale: LocaleSettings(language: "en", country: ""), now: seenAt)
        let evaluation = try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context)
        let state = AppState().recording(.success(evaluation, body: body, etag: nil, fetched: true), running: running, at: seenAt, rollout: settings())
        let offer = try #require(state.pending)
        #expect(offer.offerAt.timeIntervalSince1970 == offer.offerAt.timeIntervalSince1970.rounded(), "whole seconds")
        #expect(offer.announcedAt == announced, "T on its whole second")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let reloaded = try decoder.decode(AppState.self, from: try encoder.encode(state))
        #expect(reloaded.resettled(settings(), now: seenAt.addingTimeInterval(60)) == reloaded, "a restart re-settles to the same offer")
    }

    @Test("a server that flaps to another version and back does not restart the rollout: T is kept per version")
    func flappingKeepsFirstSeen() throws {
        func check(_ version: String, at time: Date, after state: AppState) throws -> AppState {
            let body = #"{"SSVCLatestVersionKey":"\#(version)"}"#
            let context = EvaluationContext(running: running, appID: "", locale: LocaleSettings(language: "en", country: ""), now: time)
            let evaluation = try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context)
            return state.recording(.success(evaluation, body: body, etag: nil, fetched: true), running: running, at: time, rollout: settings(pinned: 0.5))
        }
        let first = try check("2.0", at: announced, after: AppState())
        let flapped = try check("1.9", at: announced.addingTimeInterval(3_600), after: first)
        let back = try check("2.0", at: announced.addingTimeInterval(7_200), after: flapped)
        #expect(back.pending?.announcedAt == announced, "T is when 2.0 was first seen, not when it came back")
        #expect(back.pending?.offerAt == announced.addingTimeInterval(0.5 * week))
        // A version last seen longer ago than the longest window starts anew.
        let much = announced.addingTimeInterval(TimeInterval(PhasedRollout.maximumWindowSeconds) + 10)
        let again = try check("2.0", at: much, after: try check("1.9", at: much.addingTimeInterval(-5), after: back))
        #expect(again.pending?.announcedAt == much)
    }

    @Test("a pin set after the check moves the pending offer: 0 makes it at once")
    func resettling() throws {
        let state = AppState().recording(
            .success(Evaluation(decision: try document(), messages: []), body: "", etag: nil, fetched: true), running: running, at: announced,
            rollout: settings(pinned: 0.8)
        )
        #expect(state.pending != nil)
        let canary = state.resettled(settings(pinned: 0), now: announced.addingTimeInterval(60))
        #expect(canary.pending == nil && canary.decision?.status == .updateAvailable)
        let later = state.resettled(settings(pinned: 0.9), now: announced)
        #expect(later.pending?.offerAt == announced.addingTimeInterval(0.9 * week))
    }

    @Test("the next wake-up is the earlier of the next check and the pending offer")
    func wake() throws {
        let offer = PhasedOffer(version: "2.0", announcedAt: announced, window: week, position: 0.1, offerAt: announced.addingTimeInterval(60), decision: Decision())
        let check = NextCheck(at: announced.addingTimeInterval(120), reason: .schedule)
        #expect(Wake.next(check: check, offer: offer) == Wake(at: announced.addingTimeInterval(60), reason: .offer))
        #expect(Wake.next(check: NextCheck(at: announced.addingTimeInterval(30), reason: .schedule), offer: offer)?.reason == .check)
        #expect(Wake.next(check: NextCheck(at: nil, reason: .manualOnly), offer: offer)?.reason == .offer)
        #expect(Wake.next(check: NextCheck(at: nil, reason: .manualOnly), offer: nil) == nil)
        #expect(Wake.next(check: check, offer: nil) == Wake(at: announced.addingTimeInterval(120), reason: .check))
    }

    @Test("the longest window from a version announced at the end of 9999 cannot push an offer past the year 9999")
    func hugeWindow() throws {
        let late = utc("9999-12-31T00:00:00Z")
        let settled = PhasedRollout.settle(
            try document(since: late, window: PhasedRollout.maximumWindowSeconds), settings: settings(window: nil, pinned: 0.5), firstSeen: late, offered: nil,
            now: late
        )
        #expect(settled.pending?.offerAt == PhasedRollout.latestOffer)
        #expect(RFC3339.format(settled.pending!.offerAt) == "9999-12-31T23:59:59Z")
    }
}
