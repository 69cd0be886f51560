/// What a check concluded about the running version.
public enum UpdateStatus: String, Sendable, Codable, CaseIterable {
    /// The response named no version: nothing was decided.
    case unknown
    case upToDate = "up-to-date"
    case updateAvailable = "update-available"
    case updateRequired = "update-required"
    /// The running version is newer than the latest the server names.
    case ahead
}
