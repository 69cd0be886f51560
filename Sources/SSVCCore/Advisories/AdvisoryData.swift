import FoundationEssentials

/// What the daemon keeps of an app's advisories between checks (in
/// `state.json`): the findings of the last successful read, for the
/// version it was read for, and the source's validators. Ignore entries
/// are applied when the data is shown, never stored, so that one lapses
/// without a new read.
package struct AdvisoryData: Sendable, Equatable, Codable {
    /// The last successful read of the source.
    package var checked: Date?
    /// The last read attempted, successful or not.
    package var lastAttempt: Date?
    package var consecutiveFailures: Int
    package var lastError: String?
    /// The source's Retry-After (or rate limit's reset) after a failed
    /// read: the app's next check waits for it, across restarts too.
    package var retryNotBefore: Date?
    /// The running version the findings were evaluated for: another one reads the source again in full.
    package var version: String?
    package var findings: [AdvisoryFinding]
    /// Affecting records beyond the findings kept.
    package var omitted: Int
    /// What the read could not evaluate: records skipped and named, ranges of an unordered ecosystem.
    package var notes: [String]
    /// Ranges that could affect the running version and that no order
    /// could read: while any is left, nothing read is `clear`.
    package var undecided: Int
    /// The mirror's validators: an unchanged mirror is not read again.
    package var etag: String?
    package var lastModified: String?
    /// What the journal last said of the app's advisories: a change from
    /// it (a new advisory, a fix, an ignore entry lapsed) is said once.
    package var reported: Reported?
    /// The newest signature time accepted for the mirror: an older one is refused as a rollback.
    package var newestSignatureTime: Date?

    package struct Reported: Sendable, Equatable, Codable {
        package var state: AdvisoryState
        package var ids: [String]

        package init(state: AdvisoryState, ids: [String]) {
            self.state = state
            self.ids = ids
        }
    }

    package init() {
        consecutiveFailures = 0
        findings = []
        omitted = 0
        notes = []
        undecided = 0
    }

    /// The data after a successful read of `evaluator`'s records at `now`.
    package func read(_ evaluator: AdvisoryEvaluator, etag: String?, lastModified: String?, at now: Date) -> AdvisoryData {
        var next = self
        next.checked = now
        next.lastAttempt = now
        next.consecutiveFailures = 0
        next.lastError = nil
        next.retryNotBefore = nil
        next.version = evaluator.version
        next.findings = evaluator.sortedFindings
        next.omitted = evaluator.omittedFindings
        var notes: [String] = []
        if evaluator.problemCount > 0 {
            notes.append("\(evaluator.problemCount) advisory records skipped: " + evaluator.problems.joined(separator: "; "))
        }
        if evaluator.unevaluatedRanges > 0 {
            let why = evaluator.order == .unordered
                ? "ssvc has no order for \(evaluator.ecosystem)'s versions, only its versions lists count"
                : "of a range type ssvc does not know"
            notes.append("\(evaluator.unevaluatedRanges) ranges not evaluated: \(why)")
        }
        if evaluator.unreadableRanges > 0 {
            notes.append(
                "\(evaluator.unreadableRanges) ranges not evaluated: an event's version, or the running version, is not one their order reads"
            )
        }
        // Skipped records are not read: whose they were is not known.
        let read = evaluator.recordsRead - evaluator.problemCount
        if read > 0, evaluator.ecosystemRecords == 0 {
            notes.append("none of the \(read) records read is of \(evaluator.ecosystem): is advisories-ecosystem spelt as OSV does?")
        }
        if evaluator.skippedOfPackage > 0 {
            notes.append("\(evaluator.skippedOfPackage) of the records skipped name \(DisplayText.cut(evaluator.package, bytes: 240)): they could affect it")
        }
        if evaluator.gitRanges > 0 {
            notes.append("\(evaluator.gitRanges) GIT ranges not evaluated: only their versions lists count")
        }
        next.notes = notes
        next.undecided = evaluator.unreadableRanges + evaluator.skippedOfPackage
        next.etag = etag
        next.lastModified = lastModified
        return next
    }

    /// The data after a read that found the source unchanged at `now`.
    package func unchanged(at now: Date) -> AdvisoryData {
        var next = self
        next.checked = now
        next.lastAttempt = now
        next.consecutiveFailures = 0
        next.lastError = nil
        next.retryNotBefore = nil
        return next
    }

    /// The data after a failed read: the findings of the last good one are
    /// kept; `retryAfter`, the source's, when it gave one.
    package func failed(_ error: String, at now: Date, retryAfter: Date? = nil) -> AdvisoryData {
        var next = self
        next.lastAttempt = now
        next.consecutiveFailures = consecutiveFailures == .max ? .max : consecutiveFailures + 1
        next.lastError = DisplayText.cut(error)
        next.retryNotBefore = retryAfter
        return next
    }

    // Files written before a field existed read with its default.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        checked = try container.decodeIfPresent(Date.self, forKey: .checked)
        lastAttempt = try container.decodeIfPresent(Date.self, forKey: .lastAttempt)
        consecutiveFailures = try container.decodeIfPresent(Int.self, forKey: .consecutiveFailures) ?? 0
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        retryNotBefore = try container.decodeIfPresent(Date.self, forKey: .retryNotBefore)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        findings = try container.decodeIfPresent([AdvisoryFinding].self, forKey: .findings) ?? []
        omitted = try container.decodeIfPresent(Int.self, forKey: .omitted) ?? 0
        notes = try container.decodeIfPresent([String].self, forKey: .notes) ?? []
        undecided = try container.decodeIfPresent(Int.self, forKey: .undecided) ?? 0
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        reported = try container.decodeIfPresent(Reported.self, forKey: .reported)
        newestSignatureTime = try container.decodeIfPresent(Date.self, forKey: .newestSignatureTime)
    }
}

/// `ignore-advisories`: an id, alias or upstream id not to report, until a date.
package struct AdvisoryIgnore: Sendable, Equatable {
    package var id: String
    /// The first instant the entry no longer applies (the day after `until`, 00:00 UTC); nil: for good.
    package var lapsesAt: Date?
    package var reason: String?

    package init(id: String, lapsesAt: Date? = nil, reason: String? = nil) {
        self.id = id
        self.lapsesAt = lapsesAt
        self.reason = reason
    }

    package func applies(at now: Date) -> Bool { lapsesAt.map { now < $0 } ?? true }
}

/// How an app asks about advisories (its `advisories*` keys).
package struct AdvisorySettings: Sendable, Equatable {
    package var source: String
    package var ecosystem: String
    /// Nil: the source package dpkg names for `version-package`, found at each check.
    package var package: String?
    package var ignores: [AdvisoryIgnore]
    package var maxAgeDays: Int
    package var maxBytes: Int
    /// `public-keys`: an export mirror must be signed (its signature at
    /// `signature.url`); nil: unsigned. Not for the API or a folder.
    package var signature: SignatureRequirement?

    package static let defaultSource = "https://api.osv.dev/v1/query"
    package static let defaultMaxAgeDays = 7
    package static let defaultMaxBytes = 512 << 20

    package init(
        source: String = defaultSource, ecosystem: String, package: String?, ignores: [AdvisoryIgnore] = [],
        maxAgeDays: Int = defaultMaxAgeDays, maxBytes: Int = defaultMaxBytes, signature: SignatureRequirement? = nil
    ) {
        self.signature = signature
        self.source = source
        self.ecosystem = ecosystem
        self.package = package
        self.ignores = ignores
        self.maxAgeDays = maxAgeDays
        self.maxBytes = maxBytes
    }

    /// The kind of source `source` names (SPEC §13): the API, an export zip, or a folder of records.
    package var sourceKind: AdvisorySourceKind { AdvisorySourceKind(source) }
}

package enum AdvisorySourceKind: Sendable, Equatable {
    /// POST a query per package, pages followed.
    case api
    /// An OSV export (`all.zip`), over HTTP(S) or a local file.
    case zip
    /// A `file://` folder of `.json` records.
    case folder

    package init(_ source: String) {
        let path = source.split(separator: "?", maxSplits: 1).first.map(String.init) ?? source
        if path.lowercased().hasSuffix(".zip") {
            self = .zip
        } else if source.lowercased().hasPrefix("file://") {
            self = .folder
        } else {
            self = .api
        }
    }
}
