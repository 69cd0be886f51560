/// The server formats ssvc reads.
public enum ResponseFormat: String, Sendable, Codable, CaseIterable {
    /// SSVC's JSON (protocol 1, with the draft keys).
    case ssvc
    /// Turkcell Updater's configuration with filters and messages.
    case turkcell
    /// The App Store lookup JSON.
    case itunes

    /// The scheme an app of this format compares with unless configured:
    /// App Store versions are compared as the lookup recipe does.
    public var defaultVersionScheme: VersionScheme {
        self == .itunes ? .nsnumeric : .dotted
    }
}
