/// The server formats ssvc reads.
public enum ResponseFormat: String, Sendable, Codable, CaseIterable {
    /// SSVC's JSON (protocol 1, with the draft keys).
    case ssvc
    /// Turkcell Updater's configuration with filters and messages.
    case turkcell
    /// The App Store lookup JSON.
    case itunes
    /// A GitHub releases list.
    case github
    /// Any JSON document, read with the app's JSON Pointers.
    case json

    /// The scheme an app of this format compares with unless configured:
    /// App Store versions are compared as the lookup recipe does.
    public var defaultVersionScheme: VersionScheme {
        self == .itunes ? .nsnumeric : .dotted
    }
}

/// What a format needs from an app's configuration besides the common
/// keys: `github`'s tag rules, `json`'s pointers.
public struct FormatSettings: Sendable, Equatable {
    public var github: GitHubReleases.Settings
    /// Nil unless the format is `json`, which needs `version-pointer`.
    public var pointers: PointerDocument.Settings?

    public init(github: GitHubReleases.Settings = GitHubReleases.Settings(), pointers: PointerDocument.Settings? = nil) {
        self.github = github
        self.pointers = pointers
    }
}
