/// Decides which OSV records affect one package at one version, exactly as
/// the schema's evaluation section says (SPEC §13), one record at a time so
/// that a source of any size is read in bounded memory: only the findings
/// are kept, at most `maximumFindings` of them.
public struct AdvisoryEvaluator: Sendable {
    public let ecosystem: String
    public let package: String
    public let version: String
    /// The running version as the operator or the product wrote it
    /// (`v0.28.1` where the order reads `0.28.1`): `versions` entries
    /// are strings, and match it as written too.
    public let written: String
    public let order: EcosystemOrder

    public private(set) var findings: [AdvisoryFinding] = []
    /// Affecting records beyond `maximumFindings`, counted, not kept.
    public private(set) var omittedFindings = 0
    /// Ids an ignore entry names (lapsed or not): what they match is kept
    /// apart, so that ignored advisories never push a real one out.
    public var ignoring: Set<String> = []
    public private(set) var ignoredFindings: [AdvisoryFinding] = []
    /// Records read, whether or not they concern the package.
    public private(set) var recordsRead = 0
    /// Records with an entry of the ecosystem: none of many says the
    /// ecosystem is misnamed (or the source is another's). Once there is
    /// one, records that cannot name the package are passed over unparsed
    /// (`mayConcern`), so this counts only the records parsed.
    public private(set) var ecosystemRecords = 0
    /// Records passed over unparsed: their text cannot name the package.
    public private(set) var passedOver = 0
    /// What tells those records from the others.
    public let sieve: OSVRecordSieve
    /// Records that name the package and were skipped, named with their problem (at most `maximumProblems`).
    public private(set) var problems: [String] = []
    public private(set) var problemCount = 0
    /// Ranges of the package that could not be evaluated: no order for
    /// the ecosystem, or a range type the schema may add.
    public private(set) var unevaluatedRanges = 0
    /// Ranges that could affect the running version but that no order
    /// reads (an event's version, or the running one): the verdict is then
    /// never `clear`.
    public private(set) var unreadableRanges = 0
    /// `GIT` ranges of the package: not evaluated, their `versions` count.
    public private(set) var gitRanges = 0
    /// Records skipped that name the package: what they say of the
    /// running version is not known, so the verdict is never `clear`
    /// (a range of 100,000 events was refused, and read as clear).
    public private(set) var skippedOfPackage = 0
    /// Asked before each range of the package is read (sorting its events
    /// is the costly part: a record of 16,384 took 0.24 s): once it says
    /// the time is up, that record and every later one are left alone and
    /// `ranOutOfTime` is set, for the reader to give up (issue 51).
    public var expired: (@Sendable () -> Bool)?
    public private(set) var ranOutOfTime = false
    private var seen: Set<String> = []

    public static let maximumFindings = 256
    public static let maximumProblems = 16

    /// Throws when the running version is not a version in the ecosystem's order.
    public init(ecosystem: String, package: String, version: String, written: String? = nil) throws(VersionError) {
        self.ecosystem = ecosystem
        self.package = package
        self.version = version
        self.written = written ?? version
        order = EcosystemOrder(ecosystem: ecosystem)
        sieve = OSVRecordSieve(package: package)
        if case let .ordered(scheme) = order { try scheme.validate(version) }
    }

    /// Whether a record's text must be parsed: until one record of the
    /// ecosystem has been, all of them (a misnamed ecosystem is then said);
    /// after, those whose text could name the package.
    /// `mayName`: the sieve's answer for these bytes when it was asked on another thread.
    public func mayConcern(_ bytes: [UInt8], mayName: Bool? = nil) -> Bool {
        ecosystemRecords == 0 || (mayName ?? sieve.mayName(bytes))
    }

    /// Counts a record `mayConcern` passed over as read.
    public mutating func passOver() {
        guard !ranOutOfTime else { return }
        recordsRead += 1
        passedOver += 1
    }

    /// Takes one record into account.
    public mutating func add(_ record: OSVRecord) {
        guard !ranOutOfTime else { return }
        recordsRead += 1
        if record.affected.contains(where: { $0.ecosystem == ecosystem }) { ecosystemRecords += 1 }
        guard let finding = evaluate(record) else { return }
        // An export may hold a record twice (an alias's file): one finding per id.
        guard seen.insert(finding.id).inserted else { return }
        if finding.isNamed(anyOf: ignoring) {
            if ignoredFindings.count < Self.maximumFindings { ignoredFindings.append(finding) }
            return
        }
        if findings.count < Self.maximumFindings {
            findings.append(finding)
        } else {
            omittedFindings += 1
        }
    }

    /// Notes a record that could not be read (`name`: its file or position).
    public mutating func skip(_ name: String, problem: String) {
        recordsRead += 1
        problemCount += 1
        if problems.count < Self.maximumProblems {
            // Cut, not escaped: whoever shows it escapes it once.
            problems.append("\(DisplayText.cut(name, bytes: 240)): \(DisplayText.cut(problem, bytes: 480))")
        }
    }

    /// `skip`, for a record whose tree could be read: when it names the
    /// package, it leaves the verdict undecided.
    public mutating func skip(_ name: String, problem: String, record: JSONValue) {
        skip(name, problem: problem)
        let names = OSVRecord.namedPackages(record).contains { named in
            named.ecosystem == ecosystem && EcosystemOrder.samePackage(named.name, package, ecosystem: ecosystem)
        }
        if names { skippedOfPackage += 1 }
    }

    /// The findings, ignored ones after, each part in a stable order: by id.
    public var sortedFindings: [AdvisoryFinding] {
        let byID = { (a: AdvisoryFinding, b: AdvisoryFinding) in a.id.utf8.lexicographicallyPrecedes(b.id.utf8) }
        return findings.sorted(by: byID) + ignoredFindings.sorted(by: byID)
    }

    /// The finding for `record`, or nil when it does not affect this version.
    mutating func evaluate(_ record: OSVRecord) -> AdvisoryFinding? {
        guard record.withdrawn == nil else { return nil }
        var listed: [String] = []
        var ranges: [ReadRange] = []
        for affected in record.affected {
            guard let name = affected.name, affected.ecosystem == ecosystem,
                  EcosystemOrder.samePackage(name, package, ecosystem: ecosystem)
            else { continue }
            listed += affected.versions
            for (index, range) in affected.ranges.enumerated() {
                if let expired, expired() {
                    ranOutOfTime = true
                    return nil
                }
                if let readRange = read(range, label: "\(range.type) range \(index + 1)") { ranges.append(readRange) }
            }
        }
        var reason: String?
        if let entry = listed.first(where: { equals($0, version) }) {
            reason = "listed in versions as \(entry)"
        } else {
            for range in ranges {
                guard let entered = range.entry(holding: version) else { continue }
                reason = "\(range.label): \(range.why(version, entered: entered))"
                break
            }
        }
        guard let reason else { return nil }
        let fix = lowestFix(ranges: ranges, listed: listed)
        let severity = Self.severity(of: record)
        return AdvisoryFinding(
            id: record.id,
            aliases: record.aliases,
            upstream: record.upstream,
            summary: record.summary,
            severity: severity,
            score: severity.flatMap { try? CVSSVector(parsing: $0).baseScore },
            fixed: fix?.version,
            stillAffected: fix.flatMap { fix in Self.spans(above: fix.version, ranges: ranges, listed: listed, scheme: fix.scheme) },
            url: Self.url(of: record),
            reason: reason
        )
    }

    /// The most `fixed` versions tried, lowest first, for the one the whole record leaves unaffected.
    static let maximumFixCandidates = 16

    /// The lowest `fixed` version above the running one that no range
    /// and no `versions` entry of the record affects (SPEC §13): a fix of
    /// one range may lie in another (`[0, 1.2)` and `[1.0.5, 1.0.6)`: 1.2,
    /// not 1.0.6). Compared in the ecosystem's order, or SemVer's where it
    /// has none. Nil when no fix of the first `maximumFixCandidates` is one.
    private func lowestFix(ranges: [ReadRange], listed: [String]) -> (version: String, scheme: VersionScheme)? {
        let scheme: VersionScheme = if case let .ordered(ecosystemScheme) = order { ecosystemScheme } else { .semver }
        var candidates: Set<String> = []
        for range in ranges {
            // A fix is shown, stored and compared: a version string's bounds.
            for case let .fixed(fix) in range.events where DisplayText.versionProblem(fix) == nil {
                if (try? scheme.compare(fix, version)) == .newer { candidates.insert(fix) }
            }
        }
        // Equal versions spelt apart (`1.0`, `1.0.0`) in a stable order.
        let ascending = candidates.sorted { a, b in
            switch (try? scheme.compare(a, b)) ?? .same {
            case .older: true
            case .newer: false
            case .same: a.utf8.lexicographicallyPrecedes(b.utf8)
            }
        }
        for candidate in ascending.prefix(Self.maximumFixCandidates) {
            if listed.contains(where: { equals($0, candidate, in: scheme) }) { continue }
            if ranges.contains(where: { $0.entry(holding: candidate) != nil }) { continue }
            return (candidate, scheme)
        }
        return nil
    }

    /// What the record affects above `fix`: each range's stretches that
    /// end above it (or never end), and `versions` entries above it.
    static func spans(above fix: String, ranges: [ReadRange], listed: [String], scheme: VersionScheme) -> [AffectedSpan]? {
        var spans: [AffectedSpan] = []
        for range in ranges {
            spans += range.spans().filter { span in
                if let until = span.until { return (try? scheme.compare(until, fix)) == .newer }
                if let through = span.through { return (try? scheme.compare(through, fix)) == .newer }
                return true
            }
        }
        for entry in listed where (try? scheme.compare(entry, fix)) == .newer {
            spans.append(AffectedSpan(from: entry, through: entry))
        }
        return spans.isEmpty ? nil : Array(spans.prefix(AdvisoryFinding.maximumSpans))
    }

    /// Whether a `versions` entry names `running`: the same string (also as
    /// the operator wrote it, `v0.28.1`), or equal in the ecosystem's order
    /// where it has one and can read both.
    private func equals(_ listed: String, _ running: String, in scheme: VersionScheme? = nil) -> Bool {
        if listed == running || (running == version && listed == written) { return true }
        let compared: VersionScheme? = if let scheme { scheme } else if case let .ordered(ecosystemScheme) = order { ecosystemScheme } else { nil }
        guard let compared else { return false }
        return (try? compared.compare(listed, running)) == .same
    }

    /// A range of the package read in the order its type names: nil (and
    /// counted) when it is not evaluated. `GIT` ranges are never evaluated
    /// here: their `versions` stand for them. A `SEMVER` range whose events
    /// or the running version SemVer cannot read (`1.0` in PyPI) is read in
    /// the ecosystem's order; one that no order reads is counted as
    /// unreadable, and the verdict is then not `clear` (issue 51).
    private mutating func read(_ range: OSVRecord.VersionRange, label: String) -> ReadRange? {
        let schemes: [VersionScheme]
        switch (range.type, order) {
        case ("GIT", _):
            gitRanges += 1
            return nil
        case let ("SEMVER", .ordered(scheme)):
            schemes = scheme == .semver ? [.semver] : [.semver, scheme]
        case ("SEMVER", .unordered):
            schemes = [.semver]
        case let ("ECOSYSTEM", .ordered(scheme)):
            schemes = [scheme]
        default:
            unevaluatedRanges += 1
            return nil
        }
        for scheme in schemes {
            guard (try? scheme.validate(version)) != nil,
                  let sorted = try? Self.sorted(range.events.filter { if case .limit = $0 { false } else { true } }, scheme: scheme)
            else { continue }
            let limits = range.events.compactMap { event -> String? in
                guard case let .limit(limit) = event else { return nil }
                return limit
            }
            return ReadRange(label: label, scheme: scheme, events: sorted.map(\.event), keys: sorted.map(\.key), limits: limits)
        }
        unreadableRanges += 1
        return nil
    }

    /// Events in the ecosystem's order (`introduced: "0"` first, with no
    /// key), each with its version read once; at one version an
    /// `introduced` comes before what ends a range there. Throws when an
    /// event's version is not one in that order.
    private static func sorted(
        _ events: [OSVRecord.Event], scheme: VersionScheme
    ) throws(VersionError) -> [(event: OSVRecord.Event, key: ParsedVersion?)] {
        var keys: [ParsedVersion?] = []
        keys.reserveCapacity(events.count)
        for event in events {
            keys.append(event == .introduced("0") ? nil : try ParsedVersion(event.version, scheme: scheme))
        }
        // Places are sorted, not the events: moving a parsed version
        // retains and releases each of its arrays, and a range may have
        // 4,096 events (this halved a range's evaluation, to about 12 µs
        // an event). Equal places keep the record's order.
        let ranks = events.map(\.rank)
        var order = Array(events.indices)
        keys.withUnsafeBufferPointer { keys in
            order.sort { a, b in
                switch Self.compare(keys[a], keys[b]) {
                case .older: true
                case .newer: false
                case .same: ranks[a] != ranks[b] ? ranks[a] < ranks[b] : a < b
                }
            }
        }
        return order.map { (events[$0], keys[$0]) }
    }

    /// `introduced: "0"` (no key) before every version.
    private static func compare(_ a: ParsedVersion?, _ b: ParsedVersion?) -> VersionComparison {
        switch (a == nil, b == nil) {
        case (true, true): .same
        case (true, false): .older
        case (false, true): .newer
        case (false, false): a.unsafelyUnwrapped.compare(to: b.unsafelyUnwrapped)
        }
    }

    /// The CVSS v3 vector first, then v4, then v2, then any other rating, then the database's.
    static func severity(of record: OSVRecord) -> String? {
        for type in ["CVSS_V3", "CVSS_V4", "CVSS_V2"] {
            if let found = record.severities.first(where: { $0.type == type }) { return found.score }
        }
        return record.severities.first?.score ?? record.databaseSeverity
    }

    /// The advisory's own page first, then any web page, then any reference.
    static func url(of record: OSVRecord) -> String? {
        (record.references.first { $0.type == "ADVISORY" } ?? record.references.first { $0.type == "WEB" }
            ?? record.references.first)?.url
    }
}

/// One range of the package, its events read in one order.
struct ReadRange {
    /// `ECOSYSTEM range 2`: how the finding's reason names it.
    let label: String
    let scheme: VersionScheme
    /// Sorted, without `limit` events.
    let events: [OSVRecord.Event]
    /// Each event's version as read under `scheme`; nil for `introduced: "0"`.
    let keys: [ParsedVersion?]
    let limits: [String]

    /// The schema's `IncludedInRanges`: the `introduced` event that holds
    /// `version` in the range; nil when it lies outside, or the order
    /// cannot read it.
    func entry(holding version: String) -> OSVRecord.Event? {
        guard let running = try? ParsedVersion(version, scheme: scheme) else { return nil }
        if !limits.isEmpty {
            let beforeALimit = limits.contains { limit in
                limit.contains("*") || (try? scheme.compare(version, limit)) == .older
            }
            guard beforeALimit else { return nil }
        }
        var entered: OSVRecord.Event?
        for (event, key) in zip(events, keys) {
            // Nil only for introduced "0", before every version.
            let comparison = key.map { running.compare(to: $0) } ?? .newer
            switch event {
            case .introduced:
                if comparison != .older { entered = event }
            case .fixed:
                if comparison != .older { entered = nil }
            case .lastAffected:
                if comparison == .newer { entered = nil }
            case .limit:
                break
            }
        }
        return entered
    }

    /// "introduced 1.0, fixed 1.2": where the range that holds `version` begins and ends.
    func why(_ version: String, entered: OSVRecord.Event) -> String {
        var text = "introduced \(DisplayText.escaped(entered.version, limit: 80))"
        let end = events.first { event in
            switch event {
            case let .fixed(end): (try? scheme.compare(version, end)) == .older
            case let .lastAffected(end): (try? scheme.compare(version, end)) != .newer
            default: false
            }
        }
        if let end { text += ", \(end.name) \(DisplayText.escaped(end.version, limit: 80))" }
        return text
    }

    /// The stretches the range affects, limits aside: each from the
    /// `introduced` that enters it to what next leaves it.
    func spans() -> [AffectedSpan] {
        var spans: [AffectedSpan] = []
        var open: String?
        for event in events {
            switch event {
            case let .introduced(start):
                if open == nil { open = start }
            case let .fixed(end):
                if let from = open { spans.append(AffectedSpan(from: from, until: end)) }
                open = nil
            case let .lastAffected(end):
                if let from = open { spans.append(AffectedSpan(from: from, through: end)) }
                open = nil
            case .limit:
                break
            }
        }
        if let from = open { spans.append(AffectedSpan(from: from)) }
        return spans
    }
}
