/// One advisory that affects the version running here, as the daemon
/// keeps it, `App.advisories` shows it and `ssvcctl evaluate --advisories`
/// explains it. All text is the server's, bounded when read.
public struct AdvisoryFinding: Sendable, Equatable, Codable {
    public var id: String
    public var aliases: [String]
    /// The record's `upstream` ids: an ignore entry may name one (a DLA by its CVE).
    public var upstream: [String]
    public var summary: String?
    /// The CVSS vector, else the ecosystem's or database's rating, as given.
    public var severity: String?
    /// The CVSS v3.x base score computed from `severity`, when it is such a vector.
    public var score: Double?
    /// The lowest fixed version above the running one.
    public var fixed: String?
    public var url: String?
    /// Why it affects: the range and event that decided, or the `versions` entry.
    public var reason: String

    public init(
        id: String, aliases: [String] = [], upstream: [String] = [], summary: String? = nil, severity: String? = nil,
        score: Double? = nil, fixed: String? = nil, url: String? = nil, reason: String
    ) {
        self.id = id
        self.aliases = aliases
        self.upstream = upstream
        self.summary = summary
        self.severity = severity
        self.score = score
        self.fixed = fixed
        self.url = url
        self.reason = reason
    }

    /// Whether `name` is this advisory's id, one of its aliases or one of its upstream ids.
    public func isNamed(_ name: String) -> Bool {
        id == name || aliases.contains(name) || upstream.contains(name)
    }

    /// Whether any of `names` is this advisory's id, alias or upstream id
    /// (an ignore list of thousands costs a lookup per name here, not a scan).
    public func isNamed(anyOf names: Set<String>) -> Bool {
        names.contains(id) || aliases.contains(where: names.contains) || upstream.contains(where: names.contains)
    }
}
