/// One vulnerability record in the OSV schema (ossf/osv-schema
/// `docs/schema.md`, 1.7), holding what evaluation and reporting use.
///
/// Reading is strict where evaluation depends on it (`id`, `modified`,
/// the shape of `affected`, one kind per event, at least one `introduced`,
/// not both `fixed` and `last_affected` in one range) and lenient about
/// the rest: unknown members and the `*_specific` objects are ignored, and
/// a malformed `references` or `severity` entry is left out rather than
/// costing the whole record. A record that fails is skipped and named by
/// the caller; the others still count.
public struct OSVRecord: Sendable, Equatable {
    public let id: String
    public let aliases: [String]
    public let upstream: [String]
    public let summary: String?
    /// Present when the record was withdrawn: it then never affects.
    public let withdrawn: String?
    /// The record's severities, then each affected entry's, in order.
    public let severities: [Severity]
    /// The rating some databases give in `database_specific.severity` (GHSA's `HIGH`).
    public let databaseSeverity: String?
    public let affected: [Affected]
    public let references: [Reference]

    public struct Severity: Sendable, Equatable {
        public let type: String
        public let score: String
    }

    public struct Reference: Sendable, Equatable {
        public let type: String
        public let url: String
    }

    public struct Affected: Sendable, Equatable {
        /// Nil when the entry names no package (then it affects nothing).
        public let ecosystem: String?
        public let name: String?
        public let ranges: [VersionRange]
        public let versions: [String]
    }

    public struct VersionRange: Sendable, Equatable {
        /// `SEMVER`, `ECOSYSTEM`, `GIT`, or another the schema may add.
        public let type: String
        public let events: [Event]
    }

    public enum Event: Sendable, Equatable {
        case introduced(String)
        case fixed(String)
        case lastAffected(String)
        case limit(String)

        public var version: String {
            switch self {
            case let .introduced(v), let .fixed(v), let .lastAffected(v), let .limit(v): v
            }
        }

        /// The schema's name for this kind of event.
        public var name: String {
            switch self {
            case .introduced: "introduced"
            case .fixed: "fixed"
            case .lastAffected: "last_affected"
            case .limit: "limit"
            }
        }
    }

    /// The most bytes of an id, an alias or a version kept from a record.
    public static let maximumIdentifierBytes = 256
    /// The most aliases and upstream ids kept of one record (a Debian DLA
    /// may name hundreds of CVEs upstream; those past it are not matched).
    public static let maximumAliases = 64
    /// The most bytes of a package name: no ecosystem has names of
    /// kilobytes, and a longer one refuses its record (issue 51).
    public static let maximumPackageNameBytes = 1024
    /// The most entries of any one list (aliases, affected, ranges, events, versions) read.
    public static let maximumListCount = 100_000
    /// The most events of one range, and of all the record's ranges
    /// together: real records have a handful per range, and sorting them
    /// costs the evaluation its time (100,000 shuffled events held the
    /// daemon 13.6 s a page, issue 51). A record past either is refused.
    public static let maximumEventsPerRange = 4_096
    public static let maximumEventsPerRecord = 16_384

    /// The most memory one document of records (a record, an API page,
    /// a file of records) may take once parsed, as `JSONParser` counts it:
    /// real records, compact, count 3 to 4 times their text (a page of
    /// 1,000 is a few megabytes), while 16 MiB of `[1,1,…]` would count
    /// 384 MiB. With the page's text and one such read at a time, a
    /// release daemon's peak stays under 128 MiB (issue 51).
    public static let maximumTreeBytes = 48 << 20

    /// The packages a record names (`affected[].package`), read without
    /// its other rules: whose a record that could not be read was. Names
    /// past `maximumPackageNameBytes` are left out, as no package has one.
    public static func namedPackages(_ record: JSONValue) -> [(ecosystem: String, name: String)] {
        guard case let .array(entries)? = record["affected"] else { return [] }
        return entries.prefix(maximumListCount).compactMap { entry in
            guard case let .string(ecosystem)? = entry["package"]?["ecosystem"], case let .string(name)? = entry["package"]?["name"],
                  name.utf8.count <= maximumPackageNameBytes
            else { return nil }
            return (ecosystem, name)
        }
    }

    /// Reads one record from its JSON text.
    public init(parsing bytes: [UInt8]) throws(DocumentError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, memoryLimit: Self.maximumTreeBytes)
        } catch {
            throw DocumentError(path: "", problem: error.description)
        }
        try self.init(JSONField(root: root))
    }

    public init(_ record: JSONField) throws(DocumentError) {
        try record.requireObject()
        guard let idField = record.member("id") else { throw record.invalid("the record has no \"id\"") }
        id = try Self.identifier(idField)
        guard let modified = record.member("modified") else { throw record.invalid("\(id) has no \"modified\"") }
        _ = try modified.string()
        aliases = try Self.otherIdentifiers(record.member("aliases"))
        upstream = try Self.otherIdentifiers(record.member("upstream"))
        summary = try Self.summary(of: record)
        withdrawn = try record.member("withdrawn")?.string()
        var severities = Self.severities(record.member("severity"))
        var affected: [Affected] = []
        var events = 0
        for entry in try Self.bounded(record.member("affected")) {
            try entry.requireObject()
            severities += Self.severities(entry.member("severity"))
            let read = try Self.affected(entry, id: id)
            events += read.ranges.reduce(0) { $0 + $1.events.count }
            guard events <= Self.maximumEventsPerRecord else {
                throw entry.invalid("\(id) has more than \(Self.maximumEventsPerRecord) range events in all")
            }
            affected.append(read)
        }
        self.severities = severities
        self.affected = affected
        if case let .string(rating)? = record.member("database_specific")?.value["severity"],
           !rating.unicodeScalars.contains(where: DisplayText.isControl) {
            databaseSeverity = DisplayText.cut(rating, bytes: Self.maximumIdentifierBytes)
        } else {
            databaseSeverity = nil
        }
        references = (try? Self.bounded(record.member("references")))?.compactMap { reference in
            guard case let .string(url)? = reference.value["url"] else { return nil }
            let type = if case let .string(type)? = reference.value["type"] { type } else { "WEB" }
            return Reference(type: type, url: DisplayText.cut(url, bytes: DisplayText.maximumStoredBytes))
        } ?? []
    }

    private static func affected(_ entry: JSONField, id: String) throws(DocumentError) -> Affected {
        var ecosystem: String?
        var name: String?
        if let package = entry.member("package") {
            try package.requireObject()
            guard let ecosystemField = package.member("ecosystem"), let nameField = package.member("name") else {
                throw package.invalid("a package needs both \"ecosystem\" and \"name\"")
            }
            ecosystem = try ecosystemField.string()
            let given = try nameField.string()
            guard given.utf8.count <= maximumPackageNameBytes else {
                throw nameField.invalid("\(id) names a package of \(given.utf8.count) bytes, more than \(maximumPackageNameBytes)")
            }
            name = given
        }
        var ranges: [VersionRange] = []
        for range in try bounded(entry.member("ranges")) {
            ranges.append(try Self.range(range, id: id))
        }
        var versions: [String] = []
        for version in try bounded(entry.member("versions")) {
            versions.append(try version.string())
        }
        return Affected(ecosystem: ecosystem, name: name, ranges: ranges, versions: versions)
    }

    private static func range(_ range: JSONField, id: String) throws(DocumentError) -> VersionRange {
        try range.requireObject()
        guard let typeField = range.member("type") else { throw range.invalid("a range needs a \"type\"") }
        let type = try typeField.string()
        if type == "GIT", range.member("repo") == nil { throw range.invalid("a GIT range needs a \"repo\"") }
        guard let eventsField = range.member("events") else { throw range.invalid("a range needs \"events\"") }
        let listed = try eventsField.elements()
        guard listed.count <= maximumEventsPerRange else {
            throw eventsField.invalid("\(id) has a range of \(listed.count) events, more than \(maximumEventsPerRange)")
        }
        var events: [Event] = []
        for event in listed {
            let members = try event.members()
            guard members.count == 1, let (kind, value) = members.first else {
                throw event.invalid("an event holds exactly one of introduced, fixed, last_affected and limit")
            }
            let version = try value.string()
            switch kind {
            case "introduced": events.append(.introduced(version))
            case "fixed": events.append(.fixed(version))
            case "last_affected": events.append(.lastAffected(version))
            case "limit": events.append(.limit(version))
            default: throw event.invalid("unknown event \"\(DisplayText.escaped(kind, limit: 40))\"")
            }
        }
        guard events.contains(where: { if case .introduced = $0 { true } else { false } }) else {
            throw eventsField.invalid("a range needs at least one \"introduced\" event")
        }
        let fixes = events.contains { if case .fixed = $0 { true } else { false } }
        let lastAffected = events.contains { if case .lastAffected = $0 { true } else { false } }
        if fixes && lastAffected {
            throw eventsField.invalid("a range may hold \"fixed\" or \"last_affected\" events, not both")
        }
        return VersionRange(type: type, events: events)
    }

    private static func identifier(_ field: JSONField) throws(DocumentError) -> String {
        let text = try field.string()
        if let problem = identifierProblem(text) { throw field.invalid(problem) }
        return text
    }

    /// What keeps `text` from being an id ssvc shows, lists and passes
    /// on: 1 to 256 bytes of printable ASCII without blanks, `|`, `"` or
    /// `\` (`GHSA-…`, `CVE-…`, `RHSA-2022:0216`, `PYSEC-…`): it goes into
    /// space-separated journal fields and hook variables, Nagios lines
    /// and metric labels as it is. Nil when nothing does.
    public static func identifierProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maximumIdentifierBytes else {
            return "an id of 1 to \(maximumIdentifierBytes) bytes, found \(text.utf8.count) bytes"
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "|") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            return "the id '\(DisplayText.escaped(text, limit: 80))' holds a character ids do not have (printable ASCII only, no blanks, |, \" or \\)"
        }
        return nil
    }

    /// Aliases or upstream ids: the first `maximumAliases` that are ids;
    /// others are left out, not the record.
    private static func otherIdentifiers(_ field: JSONField?) throws(DocumentError) -> [String] {
        var result: [String] = []
        for element in try bounded(field) where result.count < maximumAliases {
            if case let .string(text) = element.value, identifierProblem(text) == nil { result.append(text) }
        }
        return result
    }

    /// The elements of an optional array, at most `maximumListCount` of them.
    private static func bounded(_ field: JSONField?) throws(DocumentError) -> [JSONField] {
        guard let field else { return [] }
        let elements = try field.elements()
        guard elements.count <= maximumListCount else {
            throw field.invalid("more than \(maximumListCount) entries")
        }
        return elements
    }

    /// `summary`, else the first line of `details`, cut to the stored bound.
    private static func summary(of record: JSONField) throws(DocumentError) -> String? {
        if let summary = record.member("summary") {
            let text = try summary.string()
            if !text.isEmpty { return DisplayText.cut(text) }
        }
        guard let details = record.member("details") else { return nil }
        let first = try details.string().split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return first.isEmpty ? nil : DisplayText.cut(first)
    }

    private static func severities(_ field: JSONField?) -> [Severity] {
        guard let field, let entries = try? field.elements() else { return [] }
        return entries.prefix(64).compactMap { entry in
            // A severity becomes a metric label and a journal field: no control characters.
            guard case let .string(type)? = entry.value["type"], case let .string(score)? = entry.value["score"],
                  !score.unicodeScalars.contains(where: DisplayText.isControl) else {
                return nil
            }
            return Severity(
                type: DisplayText.cut(type, bytes: maximumIdentifierBytes),
                score: DisplayText.cut(score, bytes: maximumIdentifierBytes)
            )
        }
    }
}

extension OSVRecord.Event {
    /// At one version, what enters a range sorts before what leaves it.
    var rank: Int {
        if case .introduced = self { 0 } else { 1 }
    }
}
