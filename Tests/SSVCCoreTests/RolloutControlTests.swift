import FoundationEssentials
@testable import SSVCCore
import Testing

/// Rollout control as pure arithmetic (SPEC §14): the publisher's cap on a
/// phased rollout, and the machine's limits and holds.
@Suite("rollout control: the server's cap, max-version, ignore-versions and holds")
struct RolloutControlTests {
    let running = RunningVersion(key: "1.0")
    let announced = utc("2027-01-15T08:00:00Z")
    let hour: TimeInterval = 3_600

    /// An `ssvc` document naming `version`, announced at `announced`, with
    /// the window and cap given.
    func document(_ version: String = "2.0", window: UInt64? = nil, cap: String? = nil, required: Bool = false) throws -> Decision {
        var object = [#""SSVCLatestVersionKey":"\#(version)""#, #""SSVCLatestVersionAvailableSince":\#(Int(announced.timeIntervalSince1970))"#]
        if let window { object.append(#""SSVCPhasedRolloutInterval":\#(window)"#) }
        if let cap { object.append(#""SSVCPhasedRolloutPercentage":\#(cap)"#) }
        if required { object.append(#""SSVCUpdateRequired":true"#) }
        return try SSVCResponse(parsing: Array("{\(object.joined(separator: ","))}".utf8)).decide(for: running)
    }

    func at(_ position: Double) -> PhasedRollout.Settings {
        PhasedRollout.Settings(app: "billing", pinnedPosition: position, machine: "m")
    }

    func settle(
        _ document: Decision, position: Double = 0.5, limits: KeepBackRules? = nil, offered: Decision? = nil, held: HeldBack? = nil,
        now: Date? = nil
    ) -> PhasedRollout.Settled {
        PhasedRollout.settle(
            document, settings: at(position), limits: limits, firstSeen: announced, offered: offered, previouslyHeld: held, now: now ?? announced
        )
    }

    // MARK: The server's cap

    @Test("a cap above p × 100 offers at once without a window; at or below it the offer waits, with no time of its own")
    func capDecides() throws {
        let open = settle(try document(cap: "50.5"), position: 0.5)
        #expect(open.pending == nil && open.decision.status == .updateAvailable)
        for cap in ["50", "49.9", "0"] {
            let waiting = settle(try document(cap: cap), position: 0.5)
            let offer = try #require(waiting.pending, "cap \(cap)")
            #expect(waiting.decision.status == .upToDate && waiting.decision.latestVersion == nil)
            #expect(offer.capped && offer.dueAt == nil && offer.percentageNeeded == 50)
            #expect(offer.decision.status == .updateAvailable)
        }
    }

    @Test("100, or no cap, offers every machine, the last position included")
    func fullCap() throws {
        #expect(settle(try document(cap: "100"), position: 1).pending == nil)
        #expect(settle(try document(), position: 1).pending == nil)
    }

    @Test("with a window and a cap, both must allow it: the time first, then the cap")
    func timeAndCap() throws {
        let early = settle(try document(window: 10 * 3_600, cap: "60"), position: 0.5, now: announced.addingTimeInterval(hour))
        #expect(early.pending?.dueAt == announced.addingTimeInterval(5 * hour), "not capped: its time decides")
        let late = settle(try document(window: 10 * 3_600, cap: "40"), position: 0.5, now: announced.addingTimeInterval(6 * hour))
        #expect(late.pending?.capped == true && late.pending?.dueAt == nil, "its time came, but the cap holds it")
        let both = settle(try document(window: 10 * 3_600, cap: "60"), position: 0.5, now: announced.addingTimeInterval(6 * hour))
        #expect(both.pending == nil && both.decision.status == .updateAvailable)
    }

    @Test("lowering the cap, or pausing at 0, never withdraws an offer made; a newer version waits behind it")
    func offersStay() throws {
        let offered = settle(try document(cap: "80"), position: 0.5).decision
        #expect(offered.status == .updateAvailable)
        for cap in ["30", "0"] {
            let lowered = settle(try document(cap: cap), position: 0.5, offered: offered)
            #expect(lowered.pending == nil && lowered.decision.status == .updateAvailable && lowered.decision.latestVersion == "2.0")
        }
        let newer = settle(try document("3.0", cap: "0"), position: 0.5, offered: offered)
        #expect(newer.pending?.version == "3.0" && newer.pending?.capped == true)
        #expect(newer.decision.latestVersion == "2.0", "the offer of 2.0 stays in force while 3.0 is paused")
    }

    @Test("a required update is never capped")
    func requiredIgnoresCap() throws {
        let settled = settle(try document(cap: "0", required: true), position: 0.9)
        #expect(settled.pending == nil && settled.decision.status == .updateRequired)
    }

    @Test("a capped offer has no wake-up and is not made by the clock; an uncapped one is")
    func cappedNoTimer() throws {
        var state = AppState()
        let settled = settle(try document(cap: "10"), position: 0.5)
        state.decision = settled.decision
        state.pending = settled.pending
        let plan = NextCheck(at: announced.addingTimeInterval(86_400), reason: .schedule)
        #expect(Wake.next(check: plan, offer: state.pending) == Wake(at: plan.at!, reason: .check))
        #expect(state.offering(at: announced.addingTimeInterval(365 * 86_400)) == nil)
        let shown = [50, 61.3712, 0.62 * 100, 99.999, 0.001, 12.5].map(PhasedOffer.shareToPass)
        #expect(shown == ["50", "61.38", "62", "100", "0.01", "12.5"], "rounded up to hundredths, so any cap above it offers")
        #expect([30, 12.5, 33.333333, 0.005, 0, 1e-300].map(PhasedOffer.shareShown) == ["30", "12.5", "33.33", "<0.01", "0", "<0.01"])
        // A cap a hair below 100 is not all machines (issue 52).
        #expect([99.99999999999999, 99.995, 99.994, 100].map(PhasedOffer.shareShown) == [">99.99", ">99.99", "99.99", "100"])
    }

    @Test("the state's record of a check follows the cap as the document changes: stop, pause, resume")
    func stopPauseResume() throws {
        let rollout = at(0.45)
        var state = AppState()
        func check(_ cap: String?, hours: Double) throws {
            let now = announced.addingTimeInterval(hours * hour)
            let body = #"{"SSVCLatestVersionKey":"2.0"\#(cap.map { #","SSVCPhasedRolloutPercentage":\#($0)"# } ?? "")}"#
            let context = EvaluationContext(running: running, appID: "billing", locale: LocaleSettings(language: "en", country: ""), now: now)
            let evaluation = try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context)
            state = state.recording(.success(evaluation, body: body, etag: nil, fetched: true), running: running, at: now, rollout: rollout)
        }
        try check("30", hours: 0)
        #expect(state.status == .upToDate && state.pending?.capped == true, "stopped at 30 %: 45 waits")
        try check("0", hours: 1)
        #expect(state.status == .upToDate && state.pending?.capped == true, "paused")
        try check("46", hours: 2)
        #expect(state.status == .updateAvailable && state.pending == nil, "resumed past 45")
        try check("0", hours: 3)
        #expect(state.status == .updateAvailable, "paused again: the offer made stays")
    }

    @Test("format json: the cap at rollout-percentage-pointer; nothing there, or null, is no cap; anything else not a percentage rejects")
    func jsonCap() throws {
        let settings = PointerDocument.Settings(version: try JSONPointer(parsing: "/v"), rolloutPercentage: try JSONPointer(parsing: "/rollout/cap"))
        func cap(_ text: String) throws(ResponseError) -> Double? {
            try PointerDocument(parsing: Array(text.utf8), settings: settings).rolloutPercentage
        }
        #expect(try cap(#"{"v":"2.0","rollout":{"cap":12.5}}"#) == 12.5)
        #expect(try cap(#"{"v":"2.0"}"#) == nil)
        #expect(try cap(#"{"v":"2.0","rollout":{"cap":null}}"#) == nil)
        #expect(throws: ResponseError.self) { try cap(#"{"v":"2.0","rollout":{"cap":"12.5"}}"#) }
        #expect(throws: ResponseError.self) { try cap(#"{"v":"2.0","rollout":{"cap":101}}"#) }
        do {
            _ = try cap(#"{"v":"2.0","rollout":{"cap":1e400}}"#)
            Issue.record("1e400 accepted")
        } catch {
            #expect("\(error)".contains("rollout-percentage-pointer '/rollout/cap': 1e400 is not a percentage from 0 to 100"), "\(error)")
        }
    }

    // MARK: The machine's limits

    @Test("max-version keeps a newer version back, in the app's scheme; at or below it, it is offered")
    func maxVersion() throws {
        let limits = KeepBackRules(maxVersion: "2.0", scheme: .dotted)
        let kept = settle(try document("2.0.1"), position: 0, limits: limits)
        #expect(kept.decision.status == .upToDate && kept.pending == nil)
        #expect(kept.held?.version == "2.0.1" && kept.held?.by == .maxVersion && kept.held?.decision.status == .updateAvailable)
        #expect(settle(try document("2.0.0"), position: 0, limits: limits).decision.status == .updateAvailable, "2.0.0 is 2.0 under dotted")
        let semver = KeepBackRules(maxVersion: "2.0.0", scheme: .semver)
        #expect(settle(try document("2.0.0-rc.1"), position: 0, limits: semver).held == nil, "a prerelease is below its release")
    }

    @Test("ignore-versions keeps exactly those back (by the scheme's equality); a newer one past them is offered")
    func ignoreVersions() throws {
        let limits = KeepBackRules(ignoreVersions: ["2.1"], scheme: .dotted)
        #expect(settle(try document("2.1.0"), position: 0, limits: limits).held?.by == .ignoreVersions)
        #expect(settle(try document("2.1.1"), position: 0, limits: limits).decision.status == .updateAvailable)
    }

    @Test("a hold keeps back anything above its version; it is asked before max-version and ignore-versions")
    func holdFirst() throws {
        let hold = Hold(version: "1.0", since: announced)
        let limits = KeepBackRules(maxVersion: "1.5", ignoreVersions: ["2.0"], hold: hold, scheme: .dotted)
        #expect(settle(try document("2.0"), position: 0, limits: limits).held?.by == .hold)
        #expect(limits.named(.hold) == "the hold at 1.0" && limits.named(.maxVersion) == "max-version 1.5")
    }

    @Test("a document naming only a number is held by a hold's number, and not by keys")
    func numbersOnly() throws {
        let decision = try SSVCResponse(parsing: Array(#"{"SSVCLatestVersionNumber":33554432}"#.utf8))
            .decide(for: RunningVersion(key: "1.0", configuredNumber: 16_777_216))
        #expect(decision.status == .updateAvailable)
        let byNumber = KeepBackRules(hold: Hold(version: "1.0", number: 16_777_216, since: announced), scheme: .dotted)
        #expect(settle(decision, position: 0, limits: byNumber).held?.by == .hold)
        #expect(settle(decision, position: 0, limits: KeepBackRules(maxVersion: "1.5", scheme: .dotted)).held == nil, "numbers not packed")
    }

    @Test("a required update shows through every limit, the note naming what it overrides")
    func requiredShowsThrough() throws {
        let limits = KeepBackRules(hold: Hold(version: "1.0", since: announced), scheme: .dotted)
        let settled = settle(try document(required: true), position: 0, limits: limits)
        #expect(settled.decision.status == .updateRequired && settled.held == nil)
        #expect(settled.decision.note == nil, "the note is the limits', derived, never stored: settling again cannot pile it up")
        #expect(limits.note(for: settled.decision) == "required: the hold at 1.0 does not defer it")
        let again = settle(settled.decision, position: 0, limits: limits)
        #expect(again.decision == settled.decision)
    }

    @Test("an offer made, then kept back by a hold, is offered again when the hold is lifted, whatever the cap says meanwhile")
    func offerRestoredAfterHold() throws {
        let offered = settle(try document(cap: "100"), position: 0.5).decision
        let limits = KeepBackRules(hold: Hold(version: "1.0", since: announced), scheme: .dotted)
        let held = settle(try document(cap: "100"), position: 0.5, limits: limits, offered: offered)
        #expect(held.held?.withdrawn?.latestVersion == "2.0" && held.decision.status == .upToDate)
        // A check while held sees the rollout paused.
        let paused = settle(try document(cap: "0"), position: 0.5, limits: limits, offered: held.decision, held: held.held)
        #expect(paused.held?.withdrawn?.latestVersion == "2.0", "remembered across checks")
        let lifted = settle(try document(cap: "0"), position: 0.5, limits: KeepBackRules(scheme: .dotted), offered: paused.decision, held: paused.held)
        #expect(lifted.decision.status == .updateAvailable && lifted.pending == nil, "never withdrawn by the rollout")
        let never = settle(try document(cap: "0"), position: 0.5, limits: limits)
        #expect(never.held?.withdrawn == nil, "a version never offered here waits for the rollout as any other")
    }

    @Test("an older offer a limit withdrew while a newer version was pending is in force again once the limit goes")
    func olderOfferRestored() throws {
        let older = try document("2.0")
        let limits = KeepBackRules(maxVersion: "1.5", scheme: .dotted)
        let pending = settle(try document("3.0", cap: "10"), position: 0.5, offered: older)
        #expect(pending.decision.latestVersion == "2.0" && pending.pending?.version == "3.0")
        let held = settle(try document("3.0", cap: "10"), position: 0.5, limits: limits, offered: pending.decision)
        #expect(held.decision.status == .upToDate && held.held?.withdrawn?.latestVersion == "2.0", "max-version 1.5 withdraws 2.0 too")
        let lifted = settle(try document("3.0", cap: "10"), position: 0.5, offered: held.decision, held: held.held)
        #expect(lifted.decision.latestVersion == "2.0" && lifted.pending?.version == "3.0", "2.0 back in force, 3.0 still waiting")
    }

    @Test("an offer no limit can compare with (a flag alone) does not stay beside a version a limit keeps back")
    func uncomparableOfferGoes() throws {
        let flag = try SSVCResponse(parsing: Array(#"{"SSVCUpdateAvailable":true}"#.utf8)).decide(for: running)
        let limits = KeepBackRules(hold: Hold(version: "1.5", since: announced), scheme: .dotted)
        let allowed = try document("1.5")
        #expect(!limits.allow(flag) && limits.allow(allowed))
        let held = settle(try document("2.0"), position: 0, limits: limits, offered: flag)
        #expect(held.decision.status == .upToDate && held.held?.version == "2.0")
        #expect(limits.note(for: held.decision) == nil, "nothing says the hold cannot apply any more")
    }

    @Test("with packed numbers, a named hold, max-version and ignore-versions compare with a document that names only a number")
    func packedNumbers() throws {
        // 2.0 packed, against 1.0 packed.
        let decision = try SSVCResponse(parsing: Array(#"{"SSVCLatestVersionNumber":33587200}"#.utf8))
            .decide(for: RunningVersion(key: "1.0", configuredNumber: 16_809_984))
        for limits in [
            KeepBackRules(hold: Hold(version: "1.5", since: announced), scheme: .dotted, packedNumbers: true),
            KeepBackRules(maxVersion: "1.9", scheme: .dotted, packedNumbers: true),
            KeepBackRules(ignoreVersions: ["v2.0"], scheme: .dotted, packedNumbers: true),
        ] {
            #expect(settle(decision, position: 0, limits: limits).held != nil, "\(limits)")
        }
        let numbered = KeepBackRules(maxVersion: "1.9", scheme: .dotted, packedNumbers: false)
        #expect(settle(decision, position: 0, limits: numbered).held == nil, "numbers of the app's own are not packed keys")
        #expect(numbered.note(for: decision) == "max-version 1.9 cannot apply: the server names no version key to compare")
        let flag = try SSVCResponse(parsing: Array(#"{"SSVCUpdateAvailable":true}"#.utf8)).decide(for: RunningVersion(key: "1.0"))
        let hold = KeepBackRules(hold: Hold(version: "1.0", number: 16_809_984, since: announced), scheme: .dotted)
        #expect(hold.note(for: flag) == "the hold at 1.0 cannot apply: the server names no version key to compare")
        #expect(hold.note(for: try document()) == nil, "nothing to say of an update kept back")
    }

    @Test("an older offer in force stays while a limit keeps the newer one back, unless the limit keeps it back too")
    func olderOfferStays() throws {
        let older = try document("1.5")
        let kept = settle(try document("3.0"), position: 0, limits: KeepBackRules(maxVersion: "2.9", scheme: .dotted), offered: older)
        #expect(kept.decision.latestVersion == "1.5" && kept.held?.version == "3.0")
        let both = settle(try document("3.0"), position: 0, limits: KeepBackRules(maxVersion: "1.2", scheme: .dotted), offered: older)
        #expect(both.decision.status == .upToDate, "the hold withdraws 1.5 too")
    }

    @Test("the time a version was first kept back stays while the same limit keeps it")
    func heldSince() throws {
        let limits = KeepBackRules(maxVersion: "1.5", scheme: .dotted)
        let first = try #require(settle(try document(), position: 0, limits: limits).held)
        let later = settle(try document(), position: 0, limits: limits, held: first, now: announced.addingTimeInterval(hour))
        #expect(later.held?.since == announced)
        let other = settle(try document(), position: 0, limits: KeepBackRules(ignoreVersions: ["2.0"], scheme: .dotted), held: first,
                           now: announced.addingTimeInterval(hour))
        #expect(other.held?.since == announced.addingTimeInterval(hour), "another reason starts anew")
    }

    @Test("a hold set and lifted on a stored state: kept back, then offered again, or phased at its old T")
    func holdAndUnhold() throws {
        var state = AppState()
        let body = #"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutInterval":36000}"#
        let context = EvaluationContext(running: running, appID: "billing", locale: LocaleSettings(language: "en", country: ""), now: announced)
        let evaluation = try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context)
        state = state.recording(.success(evaluation, body: body, etag: nil, fetched: true), running: running, at: announced, rollout: at(0.5))
        #expect(state.pending?.dueAt == announced.addingTimeInterval(5 * hour))
        let limits = KeepBackRules(hold: Hold(version: "1.0", since: announced), scheme: .dotted)
        let held = state.resettled(at(0.5), limits: limits, now: announced.addingTimeInterval(hour))
        #expect(held.pending == nil && held.held?.by == .hold && held.status == .upToDate)
        let early = held.resettled(at(0.5), limits: KeepBackRules(scheme: .dotted), now: announced.addingTimeInterval(2 * hour))
        #expect(early.held == nil && early.pending?.dueAt == announced.addingTimeInterval(5 * hour), "phased again from the first T")
        let late = held.resettled(at(0.5), limits: KeepBackRules(scheme: .dotted), now: announced.addingTimeInterval(6 * hour))
        #expect(late.held == nil && late.pending == nil && late.status == .updateAvailable)
    }

    /// A GitHub releases list decided for a machine running 2.9.0.
    func releases(_ tags: [String]) throws -> Decision {
        let list = tags.enumerated().map { index, tag in
            #"{"tag_name":"v\#(tag)","name":"Release \#(tag)","html_url":"https://example.com/\#(tag)","published_at":"2027-01-1\#(index)T00:00:00Z"}"#
        }
        let running = RunningVersion(key: "2.9.0")
        let context = EvaluationContext(running: running, appID: "a", locale: LocaleSettings(language: "en", country: ""), now: announced)
        return try ResponseFormat.github.evaluate(Array("[\(list.joined(separator: ","))]".utf8), context: context).decision
    }

    @Test("from a list of releases, the newest one the limits allow is offered in place of the newest, which is held")
    func newestAllowed() throws {
        let document = try releases(["2.9.1", "3.0.0", "2.8.0", "2.9.5", "2.9.5", "2.9.0"])
        #expect(document.latestVersion == "3.0.0")
        #expect(document.otherNewer?.map(\.version) == ["2.9.5", "2.9.1"], "newer than 2.9.0 only, each once, newest first")
        let byMax = settle(document, position: 0, limits: KeepBackRules(maxVersion: "2.9.9", scheme: .dotted))
        #expect(byMax.decision.status == .updateAvailable && byMax.decision.latestVersion == "2.9.5")
        #expect(byMax.decision.description?.targetUrl == "https://example.com/2.9.5" && byMax.decision.description?.message == "Release 2.9.5")
        #expect(byMax.held?.version == "3.0.0" && byMax.held?.by == .maxVersion)
        let byIgnore = settle(document, position: 0, limits: KeepBackRules(ignoreVersions: ["3.0.0", "2.9.5"], scheme: .dotted))
        #expect(byIgnore.decision.latestVersion == "2.9.1" && byIgnore.held?.by == .ignoreVersions)
        let byHold = settle(document, position: 0, limits: KeepBackRules(hold: Hold(version: "2.9.0", since: announced), scheme: .dotted))
        #expect(byHold.decision.status == .upToDate && byHold.held?.version == "3.0.0", "nothing newer allowed: up to date")
        let phased = PhasedRollout.settle(
            document, settings: PhasedRollout.Settings(app: "a", window: 86_400, pinnedPosition: 0.5, machine: "m"),
            limits: KeepBackRules(maxVersion: "2.9.9", scheme: .dotted), firstSeen: announced, offered: nil, now: utc("2027-01-13T00:00:00Z")
        )
        #expect(phased.pending?.version == "2.9.5" && phased.pending?.dueAt == utc("2027-01-13T12:00:00Z"), "the older one is phased as any")
        #expect(phased.held?.version == "3.0.0" && phased.decision.status == .upToDate)
    }

    @Test("a state file of an earlier release, without holds or caps, reads as it did")
    func earlierStateFile() throws {
        let text = #"{"schema":1,"apps":{"a":{"consecutiveFailures":0,"messages":{},"decision":{"updateAvailable":true,"updateRequired":false,"ahead":false,"decided":true,"latestVersion":"2.0","notes":[]},"pending":{"version":"3.0","announcedAt":0,"window":60,"position":0.5,"offerAt":30,"decision":{"updateAvailable":true,"updateRequired":false,"ahead":false,"decided":true,"notes":[]}}}}}"#
        let state = try JSONDecoder().decode(DaemonState.self, from: Data(text.utf8))
        let app = try #require(state.apps["a"])
        #expect(app.hold == nil && app.held == nil && app.pending?.cap == nil && app.pending?.dueAt != nil)
        #expect(app.decision?.rolloutPercentage == nil)
    }
}
