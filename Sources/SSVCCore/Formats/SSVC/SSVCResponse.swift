import FoundationEssentials

/// A response in SSVC's own format: protocol 1's keys, and the draft
/// README's server-computed flags.
public struct SSVCResponse: Sendable, Equatable {
    /// The keys a server may send; all optional, others ignored.
    public enum Key {
        public static let minimumSupportedVersionNumber = "SSVCMinimumSupportedVersionNumber"
        public static let latestVersionAvailableSince = "SSVCLatestVersionAvailableSince"
        public static let latestVersionKey = "SSVCLatestVersionKey"
        public static let latestVersionNumber = "SSVCLatestVersionNumber"
        public static let updateAvailable = "SSVCUpdateAvailable"
        public static let updateRequired = "SSVCUpdateRequired"
        public static let updateAvailableSince = "SSVCUpdateAvailableSince"
        public static let phasedRolloutInterval = "SSVCPhasedRolloutInterval"
        public static let phasedRolloutPercentage = "SSVCPhasedRolloutPercentage"
    }

    /// SSVC's "no version key" placeholder.
    public static let noVersionKey = "0.0.0"
    /// The last second RFC 3339 can write.
    static let latestRepresentableTime: UInt64 = 253_402_300_799

    public var minimumSupportedVersionNumber: UInt64?
    /// Unix seconds.
    public var availableSince: UInt64?
    public var latestVersionKey: String?
    public var latestVersionNumber: UInt64?
    public var draftUpdateAvailable: Bool?
    public var draftUpdateRequired: Bool?
    /// The publisher's rollout window, in seconds.
    public var phasedRolloutInterval: UInt64?
    /// The publisher's cap on the rollout, 0–100.
    public var phasedRolloutPercentage: Double?

    public init(
        minimumSupportedVersionNumber: UInt64? = nil, availableSince: UInt64? = nil,
        latestVersionKey: String? = nil, latestVersionNumber: UInt64? = nil,
        draftUpdateAvailable: Bool? = nil, draftUpdateRequired: Bool? = nil, phasedRolloutInterval: UInt64? = nil,
        phasedRolloutPercentage: Double? = nil
    ) {
        self.minimumSupportedVersionNumber = minimumSupportedVersionNumber
        self.availableSince = availableSince
        self.latestVersionKey = latestVersionKey
        self.latestVersionNumber = latestVersionNumber
        self.draftUpdateAvailable = draftUpdateAvailable
        self.draftUpdateRequired = draftUpdateRequired
        self.phasedRolloutInterval = phasedRolloutInterval
        self.phasedRolloutPercentage = phasedRolloutPercentage
    }

    /// Reads a response body. A value of the wrong type anywhere rejects the
    /// whole response, with an error naming the key; `null` counts as absent.
    public init(parsing body: [UInt8]) throws(ResponseError) {
        let root = try ResponseError.parse(body)
        do throws(DocumentError) {
            try root.requireObject()
            minimumSupportedVersionNumber = try root.member(Key.minimumSupportedVersionNumber)?.unsignedInteger()
            latestVersionKey = try root.member(Key.latestVersionKey)?.versionString()
            latestVersionNumber = try root.member(Key.latestVersionNumber)?.unsignedInteger()
            draftUpdateAvailable = try root.member(Key.updateAvailable)?.flag()
            draftUpdateRequired = try root.member(Key.updateRequired)?.flag()
            let since = try Self.time(root.member(Key.latestVersionAvailableSince))
            let draftSince = try Self.time(root.member(Key.updateAvailableSince))
            availableSince = since ?? draftSince
            if let field = root.member(Key.phasedRolloutInterval) {
                let seconds = try field.unsignedInteger()
                guard seconds <= PhasedRollout.maximumWindowSeconds else {
                    throw field.invalid("\(seconds) s is longer than the longest rollout window, 366 days (\(PhasedRollout.maximumWindowSeconds) s)")
                }
                phasedRolloutInterval = seconds
            }
            phasedRolloutPercentage = try root.member(Key.phasedRolloutPercentage)?.percentage()
        } catch {
            throw .invalid(error)
        }
    }

    private static func time(_ field: JSONField?) throws(DocumentError) -> UInt64? {
        guard let field else { return nil }
        let seconds = try field.unsignedInteger()
        guard seconds <= latestRepresentableTime else {
            throw field.invalid("\(seconds) is after the year 9999")
        }
        return seconds
    }

    /// The latest version key, unless it is absent, empty or SSVC's `0.0.0`.
    var namedKey: String? {
        guard let key = latestVersionKey, !key.isEmpty, key != Self.noVersionKey else { return nil }
        return key
    }

    /// Decides, as SSVC does, whether `running` should update.
    ///
    /// Available: by number when both numbers are known (the number takes
    /// precedence, as SSVC documents), else by key under the running
    /// version's scheme, else by the draft `SSVCUpdateAvailable` flag.
    /// Required: the minimum supported number against the running number when
    /// both are known, else the draft `SSVCUpdateRequired` flag.
    public func decide(for running: RunningVersion) throws(ResponseError) -> Decision {
        var decision = Decision(
            latestVersion: namedKey,
            latestVersionNumber: latestVersionNumber == 0 ? nil : latestVersionNumber,
            minimumSupportedVersionNumber: minimumSupportedVersionNumber == 0 ? nil : minimumSupportedVersionNumber,
            availableSince: availableSince.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            rolloutWindow: phasedRolloutInterval, rolloutPercentage: phasedRolloutPercentage
        )
        if let latest = decision.latestVersionNumber, let current = running.number {
            decision.decided = true
            decision.updateAvailable = latest > current
            decision.ahead = latest < current
        } else if let latest = namedKey {
            decision.decided = true
            try decideByKey(latest, running: running, into: &decision)
            if decision.latestVersionNumber != nil {
                decision.notes.append("decided by version key: the running version number is unknown")
            }
        } else if let flag = draftUpdateAvailable {
            decision.decided = true
            decision.updateAvailable = flag
        } else if decision.latestVersionNumber != nil {
            decision.notes.append("the response names only a version number and the running version number is unknown")
        } else {
            decision.notes.append("the response names no version")
        }

        if let minimum = decision.minimumSupportedVersionNumber, let current = running.number {
            decision.updateRequired = minimum > current
        } else {
            if decision.minimumSupportedVersionNumber != nil {
                decision.notes.append(
                    "the server sets a minimum supported version number but the running version number is unknown"
                )
            }
            decision.updateRequired = draftUpdateRequired ?? false
        }
        return decision
    }

    private func decideByKey(_ latest: String, running: RunningVersion, into decision: inout Decision) throws(ResponseError) {
        do {
            try running.scheme.validate(latest)
        } catch {
            throw .invalid(DocumentError(path: Key.latestVersionKey, problem: error.description))
        }
        guard !running.key.isEmpty else {
            decision.updateAvailable = true
            decision.notes.append("the running version is unknown")
            return
        }
        do {
            let order = try running.scheme.compare(running.key, latest)
            decision.updateAvailable = order == .older
            decision.ahead = order == .newer
        } catch {
            throw .runningVersion(error)
        }
    }
}
