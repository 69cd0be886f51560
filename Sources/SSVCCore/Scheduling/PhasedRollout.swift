public import FoundationEssentials

/// Phased offers (SPEC §5): a newer version that is not required reaches a
/// fleet over a window rather than at every machine's next check.
///
/// A version announced at T with a window W is offered on this machine at
/// T + p × W. The position p in [0, 1) comes from a hash of the
/// machine's app-specific id, the app and the version, so that each release
/// draws a new order of machines, and it is the same in every process and
/// release of ssvc; `rollout-position` pins it.
public enum PhasedRollout {
    /// What a machine's configuration says about phasing one app.
    public struct Settings: Sendable, Equatable {
        public var app: String
        /// The app's `phased-rollout-seconds`; nil: the document's window.
        public var window: TimeInterval?
        /// `[daemon] rollout-position`; nil: drawn for each version.
        public var pinnedPosition: Double?
        /// This machine's app-specific id (hex), never its raw machine id.
        public var machine: String

        public init(app: String, window: TimeInterval? = nil, pinnedPosition: Double? = nil, machine: String) {
            self.app = app
            self.window = window
            self.pinnedPosition = pinnedPosition
            self.machine = machine
        }

        /// W for `document`: the app's window, else the document's; 0: no phasing.
        public func window(for document: Decision) -> TimeInterval {
            max(window ?? document.rolloutWindow.map { TimeInterval($0) } ?? 0, 0)
        }

        /// The position of this machine for `version` of the app.
        public func position(for version: String) -> Double {
            pinnedPosition.map { min(max($0, 0), 1) } ?? PhasedRollout.position(machine: machine, app: app, version: version)
        }
    }

    /// What an app's status is after phasing: the decision in force and,
    /// while a newer version waits for this machine's turn, that offer.
    public struct Settled: Sendable, Equatable {
        public var decision: Decision
        public var pending: PhasedOffer?
    }

    /// The machine's place in the rollout of `version` of `app`.
    public static func position(machine: String, app: String, version: String) -> Double {
        StableHash.fraction(machine + "\u{0}" + app + "\u{0}" + version)
    }

    /// How a version is named for phasing: its key, else its number. A
    /// decision that names neither (a Turkcell update with only a target
    /// URL, SSVC's draft flag alone) is not phased.
    public static func version(of decision: Decision) -> String? {
        decision.latestVersion ?? decision.latestVersionNumber.map(String.init)
    }

    /// The share of a fleet offered a version announced at `announced`
    /// with window `window` by `now`, once every machine has checked: the
    /// straight line a rollout follows.
    public static func offeredFraction(announced: Date, window: TimeInterval, now: Date) -> Double {
        guard window > 0 else { return now >= announced ? 1 : 0 }
        return min(max(now.timeIntervalSince(announced) / window, 0), 1)
    }

    /// `date` on a whole second, down (or `up`).
    static func wholeSeconds(_ date: Date, up: Bool = false) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(up ? .up : .down))
    }

    /// The latest offer time there is: the last second RFC 3339 can write.
    public static let latestOffer = Date(timeIntervalSince1970: CivilTime.representableSeconds.upperBound)
    /// The longest rollout window, from a document or `phased-rollout-seconds`: 366 days.
    public static let maximumWindowSeconds: UInt64 = 31_622_400

    /// The decision in force at `now` for a document that decided
    /// `document`.
    ///
    /// | situation                                              | in force        | pending |
    /// |--------------------------------------------------------|-----------------|---------|
    /// | no newer version, or it is required                    | `document`      | none    |
    /// | no settings, or a window of 0                          | `document`      | none    |
    /// | `offered` already offers this version                  | `document`      | none    |
    /// | `now` ≥ T + p × W (a late first check included)        | `document`      | none    |
    /// | otherwise                                              | held back       | offer   |
    ///
    /// T is the document's date, else `firstSeen`; W the app's window,
    /// else the document's. Held back is `offered` when it offers an older
    /// update (an offer is never withdrawn while the machine runs the
    /// version it was made to), else up to date. `offered` is the decision
    /// in force before, for the same running version; nil when there was
    /// none or the running version changed.
    public static func settle(
        _ document: Decision, settings: Settings?, firstSeen: Date, offered: Decision?, now: Date
    ) -> Settled {
        guard document.updateAvailable, !document.updateRequired, let settings, let version = version(of: document) else {
            return Settled(decision: document, pending: nil)
        }
        let window = settings.window(for: document)
        guard window > 0 else { return Settled(decision: document, pending: nil) }
        if let offered, offered.updateAvailable, Self.version(of: offered) == version {
            return Settled(decision: document, pending: nil)
        }
        // Whole seconds, as the state file stores times: an offer settled
        // again after a restart lands on the very time it was stored with.
        let announced = Self.wholeSeconds(document.availableSince ?? firstSeen)
        let position = settings.position(for: version)
        let offerAt = min(Self.wholeSeconds(announced.addingTimeInterval(position * window), up: true), latestOffer)
        guard now < offerAt else { return Settled(decision: document, pending: nil) }
        var held: Decision
        if let offered, offered.status == .updateAvailable {
            held = offered
        } else {
            held = Decision(decided: true, minimumSupportedVersionNumber: document.minimumSupportedVersionNumber)
        }
        held.rolloutWindow = nil
        let offer = PhasedOffer(version: version, announcedAt: announced, window: window, position: position, offerAt: offerAt, decision: document)
        return Settled(decision: held, pending: offer)
    }
}

/// A newer version this machine is not offered yet, and the decision that
/// will be in force once it is.
public struct PhasedOffer: Sendable, Equatable, Codable {
    public var version: String
    /// T: the document's date, else when this machine first saw the version.
    public var announcedAt: Date
    /// W, in seconds.
    public var window: TimeInterval
    /// p, in [0, 1].
    public var position: Double
    /// T + p × W.
    public var offerAt: Date
    /// The document's decision, in force from `offerAt`.
    public var decision: Decision

    public init(version: String, announcedAt: Date, window: TimeInterval, position: Double, offerAt: Date, decision: Decision) {
        self.version = version
        self.announcedAt = announcedAt
        self.window = window
        self.position = position
        self.offerAt = offerAt
        self.decision = decision
    }
}
