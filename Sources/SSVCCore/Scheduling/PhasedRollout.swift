import FoundationEssentials

/// Phased offers (SPEC §5): a newer version that is not required reaches a
/// fleet over a window rather than at every machine's next check.
///
/// A version announced at T with a window W is offered on this machine at
/// T + p × W. The position p in [0, 1) comes from a hash of the
/// machine's app-specific id, the app and the version, so that each release
/// draws a new order of machines, and it is the same in every process and
/// release of ssvc; `rollout-position` pins it.
package enum PhasedRollout {
    /// What a machine's configuration says about phasing one app.
    package struct Settings: Sendable, Equatable {
        package var app: String
        /// The app's `phased-rollout-seconds`; nil: the document's window.
        package var window: TimeInterval?
        /// `[daemon] rollout-position`; nil: drawn for each version.
        package var pinnedPosition: Double?
        /// This machine's app-specific id (hex), never its raw machine id.
        package var machine: String
        /// `offer-windows` (SPEC §16): an offer waits for one; nil: none.
        package var windows: OfferWindows?

        package init(
            app: String, window: TimeInterval? = nil, pinnedPosition: Double? = nil, machine: String, windows: OfferWindows? = nil
        ) {
            self.app = app
            self.window = window
            self.pinnedPosition = pinnedPosition
            self.machine = machine
            self.windows = windows
        }

        /// W for `document`: the app's window, else the document's; 0: no phasing.
        package func window(for document: Decision) -> TimeInterval {
            max(window ?? document.rolloutWindow.map { TimeInterval($0) } ?? 0, 0)
        }

        /// The position of this machine for `version` of the app.
        package func position(for version: String) -> Double {
            pinnedPosition.map { min(max($0, 0), 1) } ?? PhasedRollout.position(machine: machine, app: app, version: version)
        }
    }

    /// What an app's status is after phasing and the machine's limits:
    /// the decision in force and, while a newer version waits for this
    /// machine's turn, that offer; or, while a hold or a limit keeps it
    /// back, what it is and what keeps it.
    package struct Settled: Sendable, Equatable {
        package var decision: Decision
        package var pending: PhasedOffer?
        package var held: HeldBack?

        package init(decision: Decision, pending: PhasedOffer? = nil, held: HeldBack? = nil) {
            self.decision = decision
            self.pending = pending
            self.held = held
        }
    }

    /// The machine's place in the rollout of `version` of `app`.
    package static func position(machine: String, app: String, version: String) -> Double {
        StableHash.fraction(machine + "\u{0}" + app + "\u{0}" + version)
    }

    /// How a version is named for phasing: its key, else its number. A
    /// decision that names neither (a Turkcell update with only a target
    /// URL, SSVC's draft flag alone) is not phased.
    package static func version(of decision: Decision) -> String? {
        decision.latestVersion ?? decision.latestVersionNumber.map(String.init)
    }

    /// The share of a fleet offered a version announced at `announced`
    /// with window `window` by `now`, once every machine has checked: the
    /// straight line a rollout follows.
    package static func offeredFraction(announced: Date, window: TimeInterval, now: Date) -> Double {
        guard window > 0 else { return now >= announced ? 1 : 0 }
        return min(max(now.timeIntervalSince(announced) / window, 0), 1)
    }

    /// `date` on a whole second, down (or `up`).
    static func wholeSeconds(_ date: Date, up: Bool = false) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(up ? .up : .down))
    }

    /// The latest offer time there is: the last second RFC 3339 can write.
    package static let latestOffer = Date(timeIntervalSince1970: CivilTime.representableSeconds.upperBound)
    /// The longest rollout window, from a document or `phased-rollout-seconds`: 366 days.
    package static let maximumWindowSeconds: UInt64 = 31_622_400

    /// The decision in force at `now` for a document that decided
    /// `document`.
    ///
    /// | situation                                              | in force        | pending | held |
    /// |--------------------------------------------------------|-----------------|---------|------|
    /// | no newer version                                       | `document`      | none    | none |
    /// | a required update                                      | `document`      | none    | none |
    /// | a limit keeps it back, a list names an older one it allows | that one, settled as here | its offer | it |
    /// | a hold or a limit keeps the version back               | held back       | none    | it   |
    /// | no settings, or no window, cap or offer window         | `document`      | none    | none |
    /// | `offered` offers this version, or it was offered before a limit kept it back | `document` | none | none |
    /// | `now` ≥ T + p × W (a late first check included), and p × 100 < the cap | `document` | none | none |
    /// | otherwise                                              | held back       | offer   | none |
    ///
    /// T is the document's date, else `firstSeen`; W the app's window,
    /// else the document's (none: T); with `offer-windows`, the offer
    /// instant is the first one from T + p × W in a window, p's share of
    /// minutes into it (`OfferWindows.offer`), and a window that passed
    /// unseen gives way to the next; the cap is the document's
    /// `rolloutPercentage` (100 or none: no cap). Held back is `offered`
    /// when it offers an older update that the limits allow (a phased
    /// offer is never withdrawn while the machine runs the version it was
    /// made to; a limit set since withdraws it while it lasts), else up to
    /// date.
    /// `offered` is the decision in force before, for the same running
    /// version; nil when there was none or the running version changed.
    /// `previouslyHeld` keeps the time a version was first kept back, and
    /// the offer a limit withdrew, which counts as in force as `offered` does.
    package static func settle(
        _ document: Decision, settings: Settings?, limits: KeepBackRules? = nil, firstSeen: Date, offered: Decision?,
        previouslyHeld: HeldBack? = nil, now: Date
    ) -> Settled {
        guard document.updateAvailable, let version = version(of: document) else { return Settled(decision: document) }
        // Required updates show through every limit (`KeepBackRules.note` says so).
        if document.updateRequired { return Settled(decision: document) }
        // The offer in force here: the one before, or the one a limit withdrew.
        let inForce = offered.flatMap { $0.status == .updateAvailable ? $0 : nil } ?? previouslyHeld?.withdrawn
        let madeBefore = inForce.map { Self.version(of: $0) == version } == true
        if let limits, let keptBy = limits.keepsBack(document) {
            let since = previouslyHeld.flatMap { $0.version == version && $0.by == keptBy ? $0.since : nil } ?? now
            let held = HeldBack(version: version, by: keptBy, since: since, decision: document, withdrawn: inForce)
            // An offer in force stays only if the limits allow it too.
            let allowedOffer = inForce.flatMap { limits.allow($0) ? $0 : nil }
            // A list of releases may name an older one the limits allow: it
            // is offered in place of the newest, phased as any other.
            if let older = document.otherNewer?.first(where: { limits.keepsBack($0.decision(replacing: document)) == nil }) {
                var settled = settle(
                    older.decision(replacing: document), settings: settings, limits: limits, firstSeen: firstSeen, offered: allowedOffer, now: now
                )
                settled.held = held
                return settled
            }
            return Settled(decision: heldBack(document, offered: allowedOffer), held: held)
        }
        guard let settings else { return Settled(decision: document) }
        let window = settings.window(for: document)
        let cap = document.rolloutPercentage.flatMap { $0 < 100 ? $0 : nil }
        guard window > 0 || cap != nil || settings.windows != nil, !madeBefore else { return Settled(decision: document) }
        // Whole seconds, as the state file stores times: an offer settled
        // again after a restart lands on the very time it was stored with.
        let announced = Self.wholeSeconds(document.availableSince ?? firstSeen)
        let position = settings.position(for: version)
        var offerAt = min(Self.wholeSeconds(announced.addingTimeInterval(position * window), up: true), latestOffer)
        var inWindow: OfferWindows.Offer?
        if let windows = settings.windows {
            inWindow = windows.offer(from: offerAt, position: position)
            // A window passed unseen (the machine was off, or asleep) is
            // never made up for outside one: the next window takes it.
            if let missed = inWindow?.windowEnd, now >= missed { inWindow = windows.offer(from: now, position: position) }
            offerAt = min(inWindow?.at ?? latestOffer, latestOffer)
        }
        var offer = PhasedOffer(
            version: version, announcedAt: announced, window: window, position: position, offerAt: offerAt, cap: cap, decision: document
        )
        offer.windowStart = inWindow?.windowStart
        offer.windowEnd = inWindow?.windowEnd
        guard now < offerAt || offer.capped else { return Settled(decision: document) }
        return Settled(decision: heldBack(document, offered: inForce), pending: offer)
    }

    /// The decision in force while the version `document` names waits:
    /// `offered` when it offers an older update, else up to date.
    private static func heldBack(_ document: Decision, offered: Decision?) -> Decision {
        var held = offered ?? Decision(decided: true, minimumSupportedVersionNumber: document.minimumSupportedVersionNumber)
        held.rolloutWindow = nil
        held.rolloutPercentage = nil
        return held
    }
}

/// A newer version this machine is not offered yet, and the decision that
/// will be in force once it is.
package struct PhasedOffer: Sendable, Equatable, Codable {
    package var version: String
    /// T: the document's date, else when this machine first saw the version.
    package var announcedAt: Date
    /// W, in seconds.
    package var window: TimeInterval
    /// p, in [0, 1].
    package var position: Double
    /// T + p × W.
    package var offerAt: Date
    /// The server's cap in force when the offer was settled, below 100;
    /// nil: none.
    package var cap: Double?
    /// The document's decision, in force from `offerAt` once p × 100 is
    /// below the cap.
    package var decision: Decision
    /// The offer window `offerAt` is in (SPEC §16): its first instant and
    /// the first after it; nil without `offer-windows`.
    package var windowStart: Date?
    package var windowEnd: Date?

    package init(
        version: String, announcedAt: Date, window: TimeInterval, position: Double, offerAt: Date, cap: Double? = nil, decision: Decision
    ) {
        self.version = version
        self.announcedAt = announcedAt
        self.window = window
        self.position = position
        self.offerAt = offerAt
        self.cap = cap
        self.decision = decision
    }

    /// The server's cap holds the offer: only a later document that
    /// raises it can make it, so no timer waits for it.
    package var capped: Bool {
        cap.map { position * 100 >= $0 } ?? false
    }

    /// The percentage the rollout must pass for this machine: its
    /// position × 100.
    package var percentageNeeded: Double { position * 100 }

    /// The share the server's cap must pass for this machine, as people
    /// read it: its position × 100 rounded up to hundredths ("61.38",
    /// "50"), so that any cap above the figure shown offers the version.
    package static func shareToPass(_ needed: Double) -> String {
        guard needed.isFinite else { return "100" }
        // Less a hair, so that a pinned 0.62 (62.00000000000001) shows 62.
        return text(hundredths: Int((min(max(needed, 0), 100) * 100 - 1e-7).rounded(.up)))
    }

    /// A share as people read it, to the nearest hundredth without
    /// trailing zeros ("62", "12.5", "0.01"); "<0.01" for a sliver above 0,
    /// ">99.99" for one below 100 (a cap of 99.99999999999999 is not all
    /// machines: "pass 100 % (now 100 %)" would say nothing, issue 52).
    package static func shareShown(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        if value > 0 && value < 0.01 { return "<0.01" }
        let hundredths = Int((min(max(value, 0), 100) * 100).rounded())
        if hundredths == 10_000 && value < 100 { return ">99.99" }
        return text(hundredths: hundredths)
    }

    private static func text(hundredths: Int) -> String {
        let fraction = hundredths % 100
        guard fraction != 0 else { return String(hundredths / 100) }
        return "\(hundredths / 100)." + (fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction))
    }

    /// When the offer is made, if time alone decides it: nil while capped.
    package var dueAt: Date? { capped ? nil : offerAt }
}
