/// Decides which OSV records affect one package at one version, exactly as
/// the schema's evaluation section says (SPEC §13), one record at a time so
/// that a source of any size is read in bounded memory: only the findings
/// are kept, at most `maximumFindings` of them.
public struct AdvisoryEvaluator: Sendable {
    public let ecosystem: String
    public let package: String
    public let version: String
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
    /// Records that name the package and were skipped, named with their problem (at most `maximumProblems`).
    public private(set) var problems: [String] = []
    public private(set) var problemCount = 0
    /// Ranges of the package that could not be evaluated: no order for
    /// the ecosystem, or a range type the schema may add.
    public private(set) var unevaluatedRanges = 0
    /// Ranges with an event whose version the order cannot read.
    public private(set) var unreadableRanges = 0
    private var seen: Set<String> = []

    public static let maximumFindings = 256
    public static let maximumProblems = 16

    /// Throws when the running version is not a version in the ecosystem's order.
    public init(ecosystem: String, package: String, version: String) throws(VersionError) {
        self.ecosystem = ecosystem
        self.package = package
        self.version = version
        order = EcosystemOrder(ecosystem: ecosystem)
        if case let .ordered(scheme) = order { try scheme.validate(version) }
    }

    /// Takes one record into account.
    public mutating func add(_ record: OSVRecord) {
        recordsRead += 1
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

    /// The findings, ignored ones after, each part in a stable order: by id.
    public var sortedFindings: [AdvisoryFinding] {
        let byID = { (a: AdvisoryFinding, b: AdvisoryFinding) in a.id.utf8.lexicographicallyPrecedes(b.id.utf8) }
        return findings.sorted(by: byID) + ignoredFindings.sorted(by: byID)
    }

    /// The finding for `record`, or nil when it does not affect this version.
    mutating func evaluate(_ record: OSVRecord) -> AdvisoryFinding? {
        guard record.withdrawn == nil else { return nil }
        var reasons: [String] = []
        var fixes: [(version: String, scheme: VersionScheme)] = []
        for affected in record.affected {
            guard let name = affected.name, affected.ecosystem == ecosystem,
                  EcosystemOrder.samePackage(name, package, ecosystem: ecosystem)
            else { continue }
            if let listed = affected.versions.first(where: equalsRunning) {
                reasons.append("listed in versions as \(listed)")
            }
            for (index, range) in affected.ranges.enumerated() {
                guard let scheme = scheme(for: range) else { continue }
                if let why = affects(range, scheme: scheme) {
                    reasons.append("\(range.type) range \(index + 1): \(why)")
                }
                fixes += range.events.compactMap { event in
                    // A fix is shown, stored and compared: a version string's bounds.
                    guard case let .fixed(fixed) = event, DisplayText.versionProblem(fixed) == nil else { return nil }
                    return (fixed, scheme)
                }
            }
        }
        guard let reason = reasons.first else { return nil }
        // Compared in the ecosystem's order, or a SEMVER range's own where the ecosystem has none.
        var lowestFix: String?
        for fix in fixes {
            let scheme = if case let .ordered(ecosystem) = order { ecosystem } else { fix.scheme }
            guard (try? scheme.compare(fix.version, version)) == .newer else { continue }
            if lowestFix.map({ (try? scheme.compare(fix.version, $0)) == .older }) ?? true { lowestFix = fix.version }
        }
        let severity = Self.severity(of: record)
        return AdvisoryFinding(
            id: record.id,
            aliases: record.aliases,
            upstream: record.upstream,
            summary: record.summary,
            severity: severity,
            score: severity.flatMap { try? CVSSVector(parsing: $0).baseScore },
            fixed: lowestFix,
            url: Self.url(of: record),
            reason: reason
        )
    }

    /// Whether `listed` names the running version: equal in the ecosystem's
    /// order where it has one and can read both, else the same string.
    private func equalsRunning(_ listed: String) -> Bool {
        if listed == version { return true }
        guard case let .ordered(scheme) = order else { return false }
        return (try? scheme.compare(listed, version)) == .same
    }

    /// The order a range's events are read in; nil (and counted) when it is not evaluated.
    /// `GIT` ranges are never evaluated here, and not counted: their `versions` stand for them.
    private mutating func scheme(for range: OSVRecord.VersionRange) -> VersionScheme? {
        switch (range.type, order) {
        case ("GIT", _):
            return nil
        case ("SEMVER", _):
            return .semver
        case let ("ECOSYSTEM", .ordered(scheme)):
            return scheme
        default:
            unevaluatedRanges += 1
            return nil
        }
    }

    /// The schema's `IncludedInRanges` for one range: why it affects the
    /// running version, or nil when it does not.
    private mutating func affects(_ range: OSVRecord.VersionRange, scheme: VersionScheme) -> String? {
        // The running version was validated in `init`; a SEMVER range may still not read it.
        guard (try? scheme.validate(version)) != nil else { return nil }
        let limits = range.events.filter { if case .limit = $0 { true } else { false } }
        if !limits.isEmpty {
            let beforeALimit = limits.contains { limit in
                limit.version.contains("*") || (try? scheme.compare(version, limit.version)) == .older
            }
            guard beforeALimit else { return nil }
        }
        let events: [OSVRecord.Event]
        do {
            events = try sorted(range.events.filter { if case .limit = $0 { false } else { true } }, scheme: scheme)
        } catch {
            unreadableRanges += 1
            return nil
        }
        var vulnerable = false
        var entered: OSVRecord.Event?
        for event in events {
            switch event {
            case let .introduced(start):
                if start == "0" || (try? scheme.compare(version, start)) != .older {
                    vulnerable = true
                    entered = event
                }
            case let .fixed(end):
                if (try? scheme.compare(version, end)) != .older { vulnerable = false }
            case let .lastAffected(end):
                if (try? scheme.compare(version, end)) == .newer { vulnerable = false }
            case .limit:
                break
            }
        }
        guard vulnerable, let entered else { return nil }
        var text = "introduced \(DisplayText.escaped(entered.version, limit: 80))"
        // What ends the range above the running version, when anything does.
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

    /// Events in the ecosystem's order (`introduced: "0"` first); at one
    /// version an `introduced` comes before what ends a range there.
    /// Throws when an event's version is not one in that order.
    private func sorted(_ events: [OSVRecord.Event], scheme: VersionScheme) throws(VersionError) -> [OSVRecord.Event] {
        for event in events {
            if case .introduced("0") = event { continue }
            try scheme.validate(event.version)
        }
        return events.sorted { a, b in
            let aZero = a == .introduced("0")
            let bZero = b == .introduced("0")
            if aZero || bZero { return aZero && !bZero }
            switch (try? scheme.compare(a.version, b.version)) ?? .same {
            case .older: return true
            case .newer: return false
            case .same: return a.rank < b.rank
            }
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
