/// The journal's `MESSAGE_ID` for each kind of entry: fixed forever, so that
/// monitoring can match on them and `systemd/ssvcd.catalog` can explain them.
package enum MessageID: String, Sendable, CaseIterable {
    case upToDate = "c7213ed2908c47dd98998fae85d1ed5c"
    case updateAvailable = "cdf3676b0e8e47a5b0d5dad2d7489f07"
    case updateRequired = "4314c44101c04f8b93a641e46a53e326"
    case checkFailed = "740a6988fa734f58af8cffd08e9c9f66"
    case notice = "537c058cf96a4d55a07ba9f16f02f39e"
    case stateRecovered = "9965ab0fa7964e30beac5cd87bac8145"
    case configurationError = "913ae7582dd54f7fa83a5a53dc110921"
    case signatureRejected = "11c9caee148449df912c3fbf98de4880"
    case hookFailed = "7bd170dae754492bb31680072d954a52"
    /// `ssvcctl hold` set a hold, or `unhold` lifted it.
    case holdChanged = "871f1d8b6309476099f00bb7288a5da3"
    /// A hold, `max-version` or `ignore-versions` kept a newer version back for the first time.
    case versionHeld = "38c8d7e0398d4fd99d51005ecdb48f2a"
    /// The advisories affecting an app's running version changed (SPEC §13).
    case advisories = "2fe4b300fc004a3d8a114ca903bb4776"
    /// An app's release line changed lifecycle state: ending, end of life, … (SPEC §15).
    case lifecycle = "0c7cc3ad243b4f0b97b6c1271e3dd68f"
    /// A restart became pending (the installed version differs from the running one), or ended.
    case restartPending = "13c33136615f4ecd882335ab1112bcba"
    /// A newer optional version waits for an offer window (SPEC §16).
    case offerWindow = "058c7110870c4c62ae42928ecbc3cc37"

    /// The entry kind for a check that concluded `status`.
    package static func forCheck(_ status: UpdateStatus) -> MessageID {
        switch status {
        case .updateRequired: .updateRequired
        case .updateAvailable: .updateAvailable
        case .upToDate, .ahead, .unknown: .upToDate
        }
    }
}
