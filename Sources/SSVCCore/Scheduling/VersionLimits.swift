public import FoundationEssentials

/// What keeps a newer version back on this machine (SPEC §14): the app's
/// `max-version` and `ignore-versions`, and a hold set at run time with
/// `ssvcctl hold`. They defer optional updates only: a required one is
/// never kept back.
public struct VersionLimits: Sendable, Equatable {
    /// No offer above this version (`max-version`).
    public var maxVersion: String?
    /// Versions never offered (`ignore-versions`).
    public var ignoreVersions: [String]
    /// The hold in force, from the state file.
    public var hold: Hold?
    /// The app's scheme, under which every version here compares.
    public var scheme: VersionScheme

    public init(maxVersion: String? = nil, ignoreVersions: [String] = [], hold: Hold? = nil, scheme: VersionScheme) {
        self.maxVersion = maxVersion
        self.ignoreVersions = ignoreVersions
        self.hold = hold
        self.scheme = scheme
    }

    /// Nothing to keep back.
    public var isEmpty: Bool { maxVersion == nil && ignoreVersions.isEmpty && hold == nil }

    /// What keeps the version `decision` names back, or nil when it may be
    /// offered. A hold is asked first, then `max-version`, then
    /// `ignore-versions`. A decision that names only a number is compared
    /// with the hold's number, when the hold recorded one; it is not
    /// compared with keys.
    public func keepsBack(_ decision: Decision) -> HeldBy? {
        guard let key = decision.latestVersion else {
            if let number = decision.latestVersionNumber, let held = hold?.number, number > held { return .hold }
            return nil
        }
        if let hold, above(key, hold.version) { return .hold }
        if let maxVersion, above(key, maxVersion) { return .maxVersion }
        if ignoreVersions.contains(where: { same(key, $0) }) { return .ignoreVersions }
        return nil
    }

    /// What `by` says in a status line: "the hold at 1.2", "max-version 1.5".
    public func named(_ by: HeldBy) -> String {
        switch by {
        case .hold: "the hold at \(hold?.version ?? "?")"
        case .maxVersion: "max-version \(maxVersion ?? "?")"
        case .ignoreVersions: "ignore-versions"
        }
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
public enum HeldBy: String, Sendable, Equatable, Codable, CaseIterable {
    case hold
    case maxVersion = "max-version"
    case ignoreVersions = "ignore-versions"
}

/// `ssvcctl hold`: no offer above `version` until `ssvcctl unhold`.
public struct Hold: Sendable, Equatable, Codable {
    /// The version held at: the one named, else the one running when the hold was set.
    public var version: String
    /// That version's number, when it was the running one and had one.
    public var number: UInt64?
    public var since: Date

    public init(version: String, number: UInt64? = nil, since: Date) {
        self.version = version
        self.number = number
        self.since = since
    }
}

/// A newer version kept back by a hold or a limit, and the decision that
/// would be in force without it.
public struct HeldBack: Sendable, Equatable, Codable {
    public var version: String
    public var by: HeldBy
    /// When this machine first kept this version back for this reason.
    public var since: Date
    /// The document's decision, in force once nothing keeps it back.
    public var decision: Decision

    public init(version: String, by: HeldBy, since: Date, decision: Decision) {
        self.version = version
        self.by = by
        self.since = since
        self.decision = decision
    }
}
