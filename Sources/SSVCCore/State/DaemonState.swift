import FoundationEssentials

/// What `state.json` holds: per app, the schedule's memory and the last good
/// response. Versioned so that a later release can read it or refuse it.
package struct DaemonState: Sendable, Equatable, Codable {
    package static let currentSchema = 1

    package var schema: Int
    package var apps: [String: AppState]

    package init(apps: [String: AppState] = [:]) {
        self.schema = Self.currentSchema
        self.apps = apps
    }

    /// The most holds kept of apps no longer configured: past it the
    /// oldest go (a state file of 360,000 such holds took 1.3 GB, issue 52).
    package static let maximumKeptHolds = 1_000

    /// The state of the apps `names` holds; of any other app only its
    /// hold, kept for when it comes back (a package upgrade may remove and
    /// restore an app file), with the names of the apps whose hold is so
    /// kept for the first time, and how many of the oldest such holds
    /// were dropped past `maximumKeptHolds`.
    package func pruned(to names: Set<String>) -> (state: DaemonState, holdsKept: [String], holdsDropped: Int) {
        var next = self
        var bare = BareHolds()
        for (name, app) in apps where !names.contains(name) {
            next.apps[name] = nil
            bare.add(name, app)
        }
        let (kept, dropped) = bare.kept()
        // A dictionary keeps the room of the entries removed from it: one
        // read with 52,000 apps no longer configured kept 150 MiB for the
        // daemon's life (issue 52). The apps left are copied into one sized to them.
        if next.apps.count + kept.count < apps.count {
            var compact = [String: AppState](minimumCapacity: next.apps.count + kept.count)
            for (name, app) in next.apps { compact[name] = app }
            next.apps = compact
        }
        for entry in kept { next.apps[entry.name] = AppState(hold: entry.hold) }
        return (next, kept.filter(\.hadMore).map(\.name).sorted(), dropped)
    }
}

/// The holds of apps no longer configured, gathered app by app: only the
/// newest `DaemonState.maximumKeptHolds` stay.
struct BareHolds {
    struct Entry {
        var name: String
        var hold: Hold
        /// The app's record held more than its hold: it left the
        /// configuration since the state was last pruned.
        var hadMore: Bool
    }

    private var entries: [String: Entry] = [:]

    /// An app no longer configured: its hold, if it has one, is kept (an
    /// app given twice, as the later record says).
    mutating func add(_ name: String, _ app: AppState, hadMore: Bool? = nil) {
        guard let hold = app.hold else {
            entries[name] = nil
            return
        }
        entries[name] = Entry(name: name, hold: hold, hadMore: hadMore ?? (app != AppState(hold: hold)))
    }

    /// The holds kept, and how many of the oldest went.
    func kept() -> (kept: [Entry], dropped: Int) {
        guard entries.count > DaemonState.maximumKeptHolds else { return (Array(entries.values), 0) }
        // Newest first, then by name: the same ones go whatever the order read.
        let sorted = entries.values.sorted { $0.hold.since != $1.hold.since ? $0.hold.since > $1.hold.since : $0.name < $1.name }
        return (Array(sorted.prefix(DaemonState.maximumKeptHolds)), entries.count - DaemonState.maximumKeptHolds)
    }
}

/// One app's history and last good answer.
package struct AppState: Sendable, Equatable, Codable {
    /// The first check attempted since the app was configured (absent in
    /// files of earlier releases).
    package var firstCheck: Date?
    /// The last check attempted, successful or not.
    package var lastCheck: Date?
    package var lastSuccess: Date?
    /// The last request actually sent.
    package var lastFetch: Date?
    package var consecutiveFailures: Int
    package var lastError: String?
    /// From the server's Retry-After.
    package var retryNotBefore: Date?
    package var etag: String?
    /// The last good response, raw; a failed check never replaces it.
    package var response: String?
    /// What the last good response decided.
    package var decision: Decision?
    /// The last good response's verified signature; nil when unsigned.
    package var signature: AcceptedSignature?
    /// The newest signature time accepted for this app, kept when keys
    /// change: a signature made before it is refused as a rollback.
    package var newestSignatureTime: Date?
    /// The running version the decision was made for.
    package var currentVersion: String?
    package var currentVersionNumber: UInt64?
    /// Turkcell message display records, by message key.
    package var messages: [String: MessageDisplayRecord]
    /// A newer version phased in later on this machine; `decision` is the
    /// one in force until `offerAt`.
    package var pending: PhasedOffer?
    /// `ssvcctl hold`: no offer above its version until `unhold`.
    package var hold: Hold?
    /// A newer version a hold or a limit keeps back; `decision` is the
    /// one in force meanwhile.
    package var held: HeldBack?
    /// The latest version a document named, and when this machine first
    /// saw it: a phased rollout's start when the document has no date.
    package var latestSeen: SeenVersion?
    /// Every version documents named within the longest rollout window,
    /// each with when this machine first saw it (at most `seenKept`): a
    /// server that flaps between two versions does not restart a rollout.
    package var seen: [SeenVersion]?
    /// The last read of the app's advisories (SPEC §13); nil when it asks about none.
    package var advisories: AdvisoryData?
    /// The last read of the app's end-of-life data (SPEC §15); nil when it asks about none.
    package var lifecycle: LifecycleData?
    /// The last read of the app's installed version (SPEC §15); nil when it has none to read.
    package var restart: RestartData?

    /// The newest version the last document named, whatever a rollout or
    /// a limit offers of it: an advisory's fix at or below it is offered.
    package var documentLatest: String? { documentDecision?.latestVersion }

    /// What the last document decided, whatever a rollout or a limit
    /// offers of it.
    package var documentDecision: Decision? { held?.decision ?? pending?.decision ?? decision }

    /// The most versions `seen` keeps.
    package static let seenKept = 16

    package init() {
        consecutiveFailures = 0
        messages = [:]
    }

    /// An app no longer configured: nothing but its hold.
    package init(hold: Hold) {
        self.init()
        self.hold = hold
    }

    /// The state once its pending offer is made, at or after its time;
    /// nil before then, while the server's cap holds it, or when nothing
    /// is pending.
    package func offering(at now: Date) -> AppState? {
        guard let pending, let due = pending.dueAt, now >= due else { return nil }
        var next = self
        next.decision = pending.decision
        next.pending = nil
        return next
    }

    /// The last document's decision settled again under `rollout` and
    /// `limits` (the configuration or the hold changed, or the daemon
    /// started): a pending offer is made now when its new time has come,
    /// or moved; a version a limit kept back is offered (or phased) once
    /// nothing keeps it back; one a new limit keeps back is withdrawn.
    /// An offer a phased rollout made is never withdrawn by the rollout.
    package func resettled(_ rollout: PhasedRollout.Settings?, limits: KeepBackRules? = nil, now: Date) -> AppState {
        guard let document = held?.decision ?? pending?.decision ?? decision else { return self }
        let version = PhasedRollout.version(of: document)
        let firstSeen = pending?.announcedAt ?? version.flatMap(seenAt) ?? now
        let settled = PhasedRollout.settle(
            document, settings: rollout, limits: limits, firstSeen: firstSeen, offered: decision, previouslyHeld: held, now: now
        )
        var next = self
        next.decision = settled.decision
        next.pending = settled.pending
        next.held = settled.held
        return next
    }

    /// When this machine first saw `version`, if it remembers.
    func seenAt(_ version: String) -> Date? {
        (seen ?? latestSeen.map { [$0] } ?? []).first { $0.version == version }?.at
    }

    /// The status every output shows: the decision's, unknown before one.
    package var status: UpdateStatus { decision?.status ?? .unknown }

    package var history: CheckHistory {
        CheckHistory(lastCheck: lastCheck, lastFetch: lastFetch, consecutiveFailures: consecutiveFailures, retryNotBefore: retryNotBefore)
    }

    /// No success for two periods: since the last success, or, with none,
    /// since the first check (an app whose first check failed a minute ago
    /// is not stale); or the stored response's signature is older than
    /// `signature` allows.
    package func isStale(now: Date, schedule: Schedule, signature: SignatureRequirement? = nil) -> Bool {
        if signature?.hasExpired(signedAt: self.signature?.signedAt, now: now) == true { return true }
        guard let period = schedule.period(at: now) else { return false }
        // A file of an earlier release has no firstCheck: its last check
        // is the latest the first could have been.
        guard let since = lastSuccess ?? firstCheck ?? lastCheck else { return false }
        return now.timeIntervalSince(since) > 2 * period
    }
}

/// A version first seen by this machine at `at`.
package struct SeenVersion: Sendable, Equatable, Codable {
    package var version: String
    package var at: Date

    package init(version: String, at: Date) {
        self.version = version
        self.at = at
    }
}
