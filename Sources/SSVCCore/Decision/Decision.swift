public import FoundationEssentials

/// The outcome of comparing one server response with the running version.
public struct Decision: Sendable, Equatable, Codable {
    public var updateAvailable: Bool
    public var updateRequired: Bool
    /// The running version is newer than the one the server names.
    public var ahead: Bool
    /// False when the response named nothing to decide on.
    public var decided: Bool
    public var latestVersion: String?
    public var latestVersionNumber: UInt64?
    public var minimumSupportedVersionNumber: UInt64?
    public var availableSince: Date?
    /// The publisher's rollout window in seconds (`SSVCPhasedRolloutInterval`).
    public var rolloutWindow: UInt64?
    /// The server's cap on a rollout, 0–100 (`SSVCPhasedRolloutPercentage`,
    /// `rollout-percentage-pointer`): a machine is offered the version only
    /// while its position × 100 is below it.
    public var rolloutPercentage: Double?
    /// Other versions a list of releases names that are newer than the
    /// running one, newest first (`github`): what a limit that keeps the
    /// newest back may offer instead.
    public var otherNewer: [NewerRelease]?
    /// Why the decision is weaker than it looks ("running version number unknown").
    public var notes: [String]
    public var description: UpdateDescription?

    public init(
        updateAvailable: Bool = false, updateRequired: Bool = false, ahead: Bool = false, decided: Bool = false,
        latestVersion: String? = nil, latestVersionNumber: UInt64? = nil,
        minimumSupportedVersionNumber: UInt64? = nil, availableSince: Date? = nil, rolloutWindow: UInt64? = nil,
        rolloutPercentage: Double? = nil, notes: [String] = [], description: UpdateDescription? = nil
    ) {
        self.updateAvailable = updateAvailable
        self.updateRequired = updateRequired
        self.ahead = ahead
        self.decided = decided
        self.latestVersion = latestVersion
        self.latestVersionNumber = latestVersionNumber
        self.minimumSupportedVersionNumber = minimumSupportedVersionNumber
        self.availableSince = availableSince
        self.rolloutWindow = rolloutWindow
        self.rolloutPercentage = rolloutPercentage
        otherNewer = nil
        self.notes = notes
        self.description = description
    }

    /// Required outranks available, available outranks ahead.
    public var status: UpdateStatus {
        if updateRequired { return .updateRequired }
        if updateAvailable { return .updateAvailable }
        if ahead { return .ahead }
        return decided ? .upToDate : .unknown
    }

    /// The notes as one line, or nil when there are none.
    public var note: String? {
        notes.isEmpty ? nil : notes.joined(separator: "; ")
    }
}

/// A release newer than the running version, short of the newest: its
/// version, date and where it is.
public struct NewerRelease: Sendable, Equatable, Codable {
    public var version: String
    public var availableSince: Date?
    public var name: String?
    public var targetUrl: String?

    public init(version: String, availableSince: Date? = nil, name: String? = nil, targetUrl: String? = nil) {
        self.version = version
        self.availableSince = availableSince
        self.name = name
        self.targetUrl = targetUrl
    }

    /// The decision that offers this release in place of `newest`'s.
    func decision(replacing newest: Decision) -> Decision {
        Decision(
            updateAvailable: true, decided: true, latestVersion: version,
            minimumSupportedVersionNumber: newest.minimumSupportedVersionNumber, availableSince: availableSince,
            rolloutWindow: newest.rolloutWindow, rolloutPercentage: newest.rolloutPercentage, notes: newest.notes,
            description: UpdateDescription(message: name, targetUrl: targetUrl)
        )
    }
}
