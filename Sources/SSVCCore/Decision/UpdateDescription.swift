/// Texts a server attaches to an update or a message (Turkcell's
/// descriptions, the App Store's release notes), in the language chosen for
/// this machine.
public struct UpdateDescription: Sendable, Equatable, Codable {
    public var message: String?
    public var whatIsNew: String?
    public var warnings: String?
    /// Turkcell messages carry a title; updates do not.
    public var title: String?
    public var targetUrl: String?

    public init(
        message: String? = nil, whatIsNew: String? = nil, warnings: String? = nil,
        title: String? = nil, targetUrl: String? = nil
    ) {
        self.message = message
        self.whatIsNew = whatIsNew
        self.warnings = warnings
        self.title = title
        self.targetUrl = targetUrl
    }
}
