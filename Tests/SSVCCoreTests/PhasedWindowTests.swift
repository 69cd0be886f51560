import FoundationEssentials
import SSVCTestSupport
import Testing
@testable import SSVCCore

/// Offer windows in the settling of an offer (SPEC §16): the offer waits
/// for a window, a window passed unseen gives way to the next, and what is
/// never deferred is not.
@Suite("phased rollout with offer windows: an offer only inside a window")
struct PhasedWindowTests {
    let phased = PhasedRolloutTests()
    /// 2027-01-15 08:00 UTC, a Friday.
    var announced: Date { phased.announced }
    /// Saturday and Sunday from 23:30 UTC, for an hour.
    let weekend = OfferWindows([OfferWindows.Window(days: [5, 6], start: 1_410, minutes: 60)], zone: .utc)

    func settings(window: TimeInterval? = nil, pinned: Double) -> PhasedRollout.Settings {
        PhasedRollout.Settings(app: "billing", window: window, pinnedPosition: pinned, machine: phased.machine, windows: weekend)
    }

    func settle(_ document: Decision, _ settings: PhasedRollout.Settings, offered: Decision? = nil, now: Date) -> PhasedRollout.Settled {
        PhasedRollout.settle(document, settings: settings, firstSeen: announced, offered: offered, now: now)
    }

    @Test("without phasing, a new version waits for the next window and is offered at its time, by position")
    func waitsThenOffers() throws {
        let document = try phased.document()
        let waiting = settle(document, settings(pinned: 0.5), now: announced)
        let offer = try #require(waiting.pending)
        #expect(waiting.decision.status == .upToDate)
        #expect(offer.offerAt == utc("2027-01-17T00:00:00Z"), "Saturday 23:30 plus half of the hour")
        #expect(offer.windowStart == utc("2027-01-16T23:30:00Z") && offer.windowEnd == utc("2027-01-17T00:30:00Z"))
        #expect(settle(document, settings(pinned: 0.5), now: offer.offerAt.addingTimeInterval(-1)).pending != nil)
        let offered = settle(document, settings(pinned: 0.5), now: offer.offerAt)
        #expect(offered.pending == nil && offered.decision.status == .updateAvailable)
    }

    @Test("the window follows T + p × W: a phased offer due on Tuesday waits for the weekend")
    func afterPhasing() throws {
        let settled = settle(try phased.document(), settings(window: 604_800, pinned: 0.5), now: announced)
        // T + 3.5 days is Tuesday 20:00; the next window is Saturday's, 30 minutes in.
        #expect(settled.pending?.offerAt == utc("2027-01-24T00:00:00Z"))
    }

    @Test("a window passed unseen (the machine was off) is never made up for outside a window: the next one takes it")
    func missedWindow() throws {
        let document = try phased.document()
        // Asked first on Sunday 01:00, after Saturday's window closed at 00:30.
        let late = settle(document, settings(pinned: 0), now: utc("2027-01-17T01:00:00Z"))
        #expect(late.decision.status == .upToDate)
        #expect(late.pending?.offerAt == utc("2027-01-17T23:30:00Z"))
        // Inside Sunday's window, it is offered.
        #expect(settle(document, settings(pinned: 0), now: utc("2027-01-17T23:45:00Z")).decision.status == .updateAvailable)
    }

    @Test("a required update, and an offer already made, are never deferred to a window")
    func neverDeferred() throws {
        let required = try phased.document(minimum: NumVersion.pack("1.5")!)
        let settled = settle(required, settings(pinned: 0.9), now: announced)
        #expect(settled.pending == nil && settled.decision.status == .updateRequired)
        // Offered inside Saturday's window, it stays offered on Monday.
        let document = try phased.document()
        let made = settle(document, settings(pinned: 0), now: utc("2027-01-16T23:40:00Z"))
        #expect(made.decision.status == .updateAvailable)
        let monday = settle(document, settings(pinned: 0), offered: made.decision, now: utc("2027-01-18T09:00:00Z"))
        #expect(monday.pending == nil && monday.decision.status == .updateAvailable)
    }

    @Test("settled again (after a restart), the offer instant is the same second")
    func stable() throws {
        let document = try phased.document()
        let first = settle(document, settings(pinned: 0.37), now: announced)
        let again = settle(document, settings(pinned: 0.37), now: announced.addingTimeInterval(7_200))
        #expect(first.pending == again.pending)
        #expect(first.pending?.offerAt.timeIntervalSince1970 == first.pending?.offerAt.timeIntervalSince1970.rounded())
    }
}
