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
    /// The lowest version above the running one that the whole record
    /// leaves unaffected, taken from its `fixed` events.
    public var fixed: String?
    /// What the record still affects above `fixed`: an offer there is not
    /// the fix (at most `maximumSpans`; nil when nothing).
    public var stillAffected: [AffectedSpan]?
    public var url: String?
    /// Why it affects: the range and event that decided, or the `versions` entry.
    public var reason: String

    public init(
        id: String, aliases: [String] = [], upstream: [String] = [], summary: String? = nil, severity: String? = nil,
        score: Double? = nil, fixed: String? = nil, stillAffected: [AffectedSpan]? = nil, url: String? = nil, reason: String
    ) {
        self.id = id
        self.aliases = aliases
        self.upstream = upstream
        self.summary = summary
        self.severity = severity
        self.score = score
        self.fixed = fixed
        self.stillAffected = stillAffected
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

/// Versions a record affects: from `from` (`"0"`: every version) up to
/// `until` (excluded) or through `through` (included); neither: no end.
public struct AffectedSpan: Sendable, Equatable, Codable {
    public var from: String
    public var until: String?
    public var through: String?

    public init(from: String, until: String? = nil, through: String? = nil) {
        self.from = from
        self.until = until
        self.through = through
    }

    /// Whether `version` lies in the span, compared in `scheme`; a version
    /// the scheme cannot read lies in no span.
    public func contains(_ version: String, in scheme: VersionScheme) -> Bool {
        guard from == "0" || (try? scheme.compare(version, from)).map({ $0 != .older }) == true else { return false }
        if let until { return (try? scheme.compare(version, until)) == .older }
        if let through { return (try? scheme.compare(version, through)).map { $0 != .newer } == true }
        return (try? scheme.validate(version)) != nil
    }
}

extension AdvisoryFinding {
    /// The most spans a finding keeps of what its record still affects above the fix.
    public static let maximumSpans = 16

    /// Whether the record still affects `version` though it is at or above the fix.
    public func stillAffects(_ version: String, in scheme: VersionScheme) -> Bool {
        (stillAffected ?? []).contains { $0.contains(version, in: scheme) }
    }
}
