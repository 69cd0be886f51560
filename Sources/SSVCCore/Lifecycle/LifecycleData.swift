import FoundationEssentials

/// What the daemon keeps of an app's end-of-life data between checks (in
/// `state.json`, SPEC §15): the release the running version belongs to,
/// as the last successful read found it, and the source's validators. The
/// state (`supported`, `ending`, …) is derived from its dates each time
/// it is shown, never stored, so a date passes without a read.
package struct LifecycleData: Sendable, Equatable, Codable {
    /// The last successful read of the source.
    package var checked: Date?
    /// The last read attempted, successful or not.
    package var lastAttempt: Date?
    package var consecutiveFailures: Int
    package var lastError: String?
    /// The source's Retry-After after a failed read.
    package var retryNotBefore: Date?
    /// The running version the release was matched for: another one reads the source again in full.
    package var version: String?
    /// The settings it was read under (`LifecycleSettings.readKey`): a
    /// reload that changes the URL, the product or the release reads anew.
    package var readFor: String?
    /// The matched release; nil when none matched (`unmatched` says why).
    package var release: EndOfLifeRelease?
    /// Why no release matched the version, as the note says it.
    package var unmatched: String?
    /// Releases of the answer that could not be read, named.
    package var notes: [String]
    package var etag: String?
    package var lastModified: String?
    /// The newest signature time accepted for the source.
    package var newestSignatureTime: Date?
    /// What the journal last said: a change from it is said once.
    package var reported: Reported?

    package struct Reported: Sendable, Equatable, Codable {
        package var state: LifecycleState
        package var release: String?

        package init(state: LifecycleState, release: String?) {
            self.state = state
            self.release = release
        }
    }

    package init() {
        consecutiveFailures = 0
        notes = []
    }

    /// The data after a successful read of `answer` for `version`:
    /// `named` is `lifecycle-release`.
    package func read(
        _ answer: EndOfLifeAnswer, version: String, named: String?, etag: String?, lastModified: String?, at now: Date, readFor: String? = nil
    ) -> LifecycleData {
        var next = self
        next.readFor = readFor
        next.checked = now
        next.lastAttempt = now
        next.consecutiveFailures = 0
        next.lastError = nil
        next.retryNotBefore = nil
        next.version = version
        next.etag = etag
        next.lastModified = lastModified
        next.release = EndOfLifeRelease.matching(version, in: answer.releases, named: named)
        next.unmatched = next.release == nil ? Self.unmatched(answer, version: version, named: named) : nil
        next.notes = answer.skipped == 0 ? [] : [
            "\(answer.skipped) releases of the end-of-life answer skipped: " + answer.problems.joined(separator: "; "),
        ]
        return next
    }

    /// Kept as the server and the configuration wrote it, cut: escaped where shown.
    private static func unmatched(_ answer: EndOfLifeAnswer, version: String, named: String?) -> String {
        let shown = { (text: String) in DisplayText.cut(text, bytes: 80) }
        if answer.isRelease, let only = answer.releases.first {
            let what = named.map { "lifecycle-release \(shown($0))" } ?? shown(version)
            return "the answer is of release \(shown(only.name)), not of \(what)"
        }
        let skipped = answer.skipped > 0 ? ", \(answer.skipped) skipped as unreadable" : ""
        if let named { return "no release named \(shown(named)) among the \(answer.releases.count) read\(skipped)" }
        return "no release of the \(answer.releases.count) read\(skipped) is \(shown(version)) or a prefix of it: set lifecycle-release"
    }

    /// Whether the data was read for `version` under `settings`; data of a
    /// file older than `readFor` counts as read under them.
    package func applies(to version: String?, under settings: LifecycleSettings) -> Bool {
        (readFor == nil || readFor == settings.readKey) && (version == nil || self.version == nil || self.version == version)
    }

    /// The data after a read that found the source unchanged at `now`.
    package func unchanged(at now: Date) -> LifecycleData {
        var next = self
        next.checked = now
        next.lastAttempt = now
        next.consecutiveFailures = 0
        next.lastError = nil
        next.retryNotBefore = nil
        return next
    }

    /// The data after a failed read: the release of the last good one is kept.
    package func failed(_ error: String, at now: Date, retryAfter: Date? = nil) -> LifecycleData {
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
        readFor = try container.decodeIfPresent(String.self, forKey: .readFor)
        release = try container.decodeIfPresent(EndOfLifeRelease.self, forKey: .release)
        unmatched = try container.decodeIfPresent(String.self, forKey: .unmatched)
        notes = try container.decodeIfPresent([String].self, forKey: .notes) ?? []
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        newestSignatureTime = try container.decodeIfPresent(Date.self, forKey: .newestSignatureTime)
        reported = try container.decodeIfPresent(Reported.self, forKey: .reported)
    }
}

/// How an app asks about its release line's end of life (its `lifecycle*` keys).
package struct LifecycleSettings: Sendable, Equatable {
    /// The URL read, `{product}` replaced.
    package var source: String
    package var product: String
    /// `lifecycle-release`: the release's name; nil: matched from the running version.
    package var release: String?
    package var warnDays: Int
    package var maxAgeDays: Int
    /// `public-keys`: the answer must be signed; nil: unsigned.
    package var signature: SignatureRequirement?

    package static let defaultSource = "https://endoflife.date/api/v1/products/{product}/"
    package static let defaultWarnDays = 90
    package static let defaultMaxAgeDays = 30

    package init(
        source: String, product: String, release: String? = nil, warnDays: Int = defaultWarnDays, maxAgeDays: Int = defaultMaxAgeDays,
        signature: SignatureRequirement? = nil
    ) {
        self.source = source
        self.product = product
        self.release = release
        self.warnDays = warnDays
        self.maxAgeDays = maxAgeDays
        self.signature = signature
    }

    /// What a read depends on besides the running version: data read under
    /// other settings is not shown, and not revalidated.
    package var readKey: String { source + "\n" + (release ?? "") }

    /// `template` with `{product}` replaced by `product`, percent-encoded as a path segment.
    package static func url(_ template: String, product: String) -> String {
        template.replacing("{product}", with: PercentEncoding.encode(product))
    }
}
