import FoundationEssentials

/// What keeps a newer version back on this machine (SPEC §14): the app's
/// `max-version` and `ignore-versions`, and a hold set at run time with
/// `ssvcctl hold`. They defer optional updates only: a required one is
/// never kept back.
package struct KeepBackRules: Sendable, Equatable {
    /// No offer above this version (`max-version`).
    package var maxVersion: String?
    /// Versions never offered (`ignore-versions`).
    package var ignoreVersions: [String]
    /// The hold in force, from the state file.
    package var hold: Hold?
    /// The app's scheme, under which every version here compares.
    package var scheme: VersionScheme
    /// The app's version numbers are packed from its keys (it sets no
    /// `version-number`): a limit compares with a document that names
    /// only a number through its own packed number.
    package var packedNumbers: Bool

    package init(
        maxVersion: String? = nil, ignoreVersions: [String] = [], hold: Hold? = nil, scheme: VersionScheme, packedNumbers: Bool = false
    ) {
        self.maxVersion = maxVersion
        self.ignoreVersions = ignoreVersions
        self.hold = hold
        self.scheme = scheme
        self.packedNumbers = packedNumbers
    }

    /// What keeps the version `decision` names back, or nil when it may be
    /// offered. A hold is asked first, then `max-version`, then
    /// `ignore-versions`. A decision that names only a number is compared
    /// with the limits' numbers: a hold's recorded one, else each limit's
    /// packed number when the app's numbers are packed.
    package func keepsBack(_ decision: Decision) -> HeldBy? {
        guard let key = decision.latestVersion else {
            guard let number = decision.latestVersionNumber else { return nil }
            if let held = hold.flatMap({ $0.number ?? self.number($0.version) }), number > held { return .hold }
            if let maximum = maxVersion.flatMap(self.number), number > maximum { return .maxVersion }
            if ignoreVersions.contains(where: { self.number($0) == number }) { return .ignoreVersions }
            return nil
        }
        if let hold, above(key, hold.version) { return .hold }
        if let maxVersion, above(key, maxVersion) { return .maxVersion }
        if ignoreVersions.contains(where: { same(key, $0) }) { return .ignoreVersions }
        return nil
    }

    /// What the status says of the limits beside `decision`: that a
    /// required update shows through the one that would keep it back, or
    /// that a limit cannot apply to an update that names no version key
    /// it could compare with. Derived each time, never stored.
    package func note(for decision: Decision) -> String? {
        guard decision.updateAvailable else { return nil }
        if let by = keepsBack(decision) {
            return decision.updateRequired ? "required: \(named(by)) does not defer it" : nil
        }
        return uncompared(decision).map { "\(named($0)) cannot apply: the server names no version key to compare" }
    }

    /// The limits let `decision`'s offer stand: nothing keeps it back, and
    /// each limit could tell (an offer no limit can compare with does not
    /// stand beside one they keep back).
    package func allow(_ decision: Decision) -> Bool {
        keepsBack(decision) == nil && uncompared(decision) == nil
    }

    /// The first limit that cannot compare with the version `decision`
    /// names: it names no key, and the limit has no number to compare with
    /// the number it names, if any.
    private func uncompared(_ decision: Decision) -> HeldBy? {
        guard decision.latestVersion == nil else { return nil }
        let named = decision.latestVersionNumber != nil
        if let hold, !named || (hold.number ?? number(hold.version)) == nil { return .hold }
        if let maxVersion, !named || number(maxVersion) == nil { return .maxVersion }
        if !ignoreVersions.isEmpty, !named || ignoreVersions.contains(where: { number($0) == nil }) { return .ignoreVersions }
        return nil
    }

    /// What `by` says in a status line: "the hold at 1.2", "max-version 1.5".
    package func named(_ by: HeldBy) -> String {
        switch by {
        case .hold: "the hold at \(hold?.version ?? "?")"
        case .maxVersion: "max-version \(maxVersion ?? "?")"
        case .ignoreVersions: "ignore-versions"
        }
    }

    /// A limit's packed number, when the app's numbers are packed.
    private func number(_ key: String) -> UInt64? {
        packedNumbers ? NumVersion.pack(VersionScheme.droppingV(key)) : nil
    }

    /// Text that is no version under the scheme never compares as above:
    /// the loader refuses such limits, and a server's version was checked.
    private func above(_ key: String, _ limit: String) -> Bool {
        (try? scheme.compare(key, limit)) == .newer
    }

    private func same(_ key: String, _ other: String) -> Bool {
        (try? scheme.compare(key, other)) == .same
    }
}

/// What kept a version back: the spelling `heldBy` uses.
package enum HeldBy: String, Sendable, Equatable, Codable {
    case hold
    case maxVersion = "max-version"
    case ignoreVersions = "ignore-versions"
}

/// `ssvcctl hold`: no offer above `version` until `ssvcctl unhold`.
package struct Hold: Sendable, Equatable, Codable {
    /// The version held at: the one named, else the one running when the hold was set.
    package var version: String
    /// That version's number, when it was the running one and had one.
    package var number: UInt64?
    package var since: Date

    package init(version: String, number: UInt64? = nil, since: Date) {
        self.version = version
        self.number = number
        self.since = since
    }

    /// Why the hold cannot apply under `scheme` (a version named in a
    /// `Hold` call, a hold set under another scheme, an edited state
    /// file): the rules the app keys follow. Nil when it can.
    package func problem(scheme: VersionScheme) -> String? {
        AppKeyRules.versionLimitProblem(version, scheme: scheme)
    }
}

/// A newer version kept back by a hold or a limit, and the decision that
/// would be in force without it.
///
/// Its two decisions live in a box of their own: every app's state holds
/// a `HeldBack?` inline, and two decisions inline would cost each of a
/// thousand apps half a kilobyte while nothing is held.
package struct HeldBack: Sendable, Equatable, Codable {
    package var version: String
    package var by: HeldBy
    /// When this machine first kept this version back for this reason.
    package var since: Date
    private var box: Box

    private final class Box: Sendable {
        let decision: Decision
        let withdrawn: Decision?

        init(decision: Decision, withdrawn: Decision?) {
            self.decision = decision
            self.withdrawn = withdrawn
        }
    }

    /// The document's decision, in force once nothing keeps it back.
    package var decision: Decision { box.decision }

    /// The offer in force here when a limit first kept a version back (this
    /// one, or an older one): once the limits allow it again it is in force
    /// again at once, whatever the rollout says by then (an offer made is
    /// never withdrawn by the rollout). Nil when none was.
    package var withdrawn: Decision? {
        get { box.withdrawn }
        set { box = Box(decision: box.decision, withdrawn: newValue) }
    }

    package init(version: String, by: HeldBy, since: Date, decision: Decision, withdrawn: Decision? = nil) {
        self.version = version
        self.by = by
        self.since = since
        box = Box(decision: decision, withdrawn: withdrawn)
    }

    private enum CodingKeys: String, CodingKey {
        case version, by, since, decision, withdrawn
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            version: container.decode(String.self, forKey: .version), by: container.decode(HeldBy.self, forKey: .by),
            since: container.decode(Date.self, forKey: .since), decision: container.decode(Decision.self, forKey: .decision),
            withdrawn: container.decodeIfPresent(Decision.self, forKey: .withdrawn)
        )
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(by, forKey: .by)
        try container.encode(since, forKey: .since)
        try container.encode(decision, forKey: .decision)
        try container.encodeIfPresent(withdrawn, forKey: .withdrawn)
    }

    package static func == (lhs: HeldBack, rhs: HeldBack) -> Bool {
        lhs.version == rhs.version && lhs.by == rhs.by && lhs.since == rhs.since && lhs.decision == rhs.decision && lhs.withdrawn == rhs.withdrawn
    }
}
