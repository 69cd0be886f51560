public import FoundationEssentials

/// A GitHub (or GitHub Enterprise) releases list, as
/// `GET /repos/OWNER/REPO/releases` answers (format `github`); a single
/// release, as `/releases/latest` answers, is read as a list of one.
public struct GitHubReleases: Sendable, Equatable {
    /// How releases become versions: the app's `include-prereleases`,
    /// `tag-prefix` and `tag-pattern`.
    public struct Settings: Sendable, Equatable {
        public var includePrereleases: Bool
        /// Removed from the front of a tag: `v1.2.3` is 1.2.3.
        public var tagPrefix: String
        /// A regular expression (`LinearPattern`'s, matched in time linear
        /// in the tag) whose first capture group is the version; a tag it
        /// does not match is skipped. Over `tagPrefix`.
        public var tagPattern: String?

        /// `tag-prefix` when not set.
        public static let defaultTagPrefix = "v"

        public init(includePrereleases: Bool = false, tagPrefix: String = defaultTagPrefix, tagPattern: String? = nil) {
            self.includePrereleases = includePrereleases
            self.tagPrefix = tagPrefix
            self.tagPattern = tagPattern
        }
    }

    public struct Release: Sendable, Equatable {
        public var tag: String
        public var name: String?
        public var body: String?
        public var draft: Bool
        public var prerelease: Bool
        public var publishedAt: Date?
        public var url: String?
    }

    public var releases: [Release]

    /// Reads every release; a member of the wrong type rejects the whole
    /// document with an error naming it (`[3].draft: expected true, false, 0 or 1`).
    public init(parsing body: [UInt8]) throws(ResponseError) {
        let root = try ResponseError.parse(body)
        do {
            let entries = if case .object = root.value { [root] } else { try root.elements() }
            releases = try entries.map { entry throws(DocumentError) in
                try entry.requireObject()
                guard let tag = entry.member("tag_name") else { throw entry.invalid("has no tag_name") }
                let published = try entry.member("published_at").map { field throws(DocumentError) in
                    guard let date = RFC3339.parse(try field.string()) else { throw field.invalid("not an RFC 3339 time") }
                    return date
                }
                return Release(
                    tag: try tag.string(), name: try entry.member("name")?.string(), body: try entry.member("body")?.string(),
                    draft: try entry.member("draft")?.flag() ?? false, prerelease: try entry.member("prerelease")?.flag() ?? false,
                    publishedAt: published, url: try entry.member("html_url")?.string()
                )
            }
        } catch {
            throw .invalid(error)
        }
    }

    /// The version a tag names under `settings`; nil when the tag is not
    /// one of the app's (it does not match `tag-pattern`).
    static func version(of tag: String, settings: Settings, pattern: LinearPattern?) throws(ResponseError) -> String? {
        guard let pattern else {
            return tag.hasPrefix(settings.tagPrefix) ? String(tag.dropFirst(settings.tagPrefix.count)) : tag
        }
        // Tags longer than a version can be are never matched, and the
        // matcher never backtracks: a pattern's time is linear in the tag,
        // whatever a server sends.
        guard tag.utf8.count <= DisplayText.maximumVersionBytes, let match = pattern.firstMatch(in: tag) else { return nil }
        guard match.count > 1 else {
            throw .rejected("tag-pattern '\(settings.tagPattern ?? "")' has no capture group for the version")
        }
        return match[1].map(String.init)
    }

    /// The newest release by the app's scheme that is not a draft, not a
    /// prerelease unless asked for, and whose tag names a version; its date
    /// is the announcement time, its name and notes what is new.
    public func decide(for context: EvaluationContext) throws(ResponseError) -> Decision {
        let settings = context.formatSettings.github
        let scheme = context.running.scheme
        var pattern: LinearPattern?
        if let text = settings.tagPattern {
            do {
                pattern = try LinearPattern(text)
            } catch {
                throw .rejected("tag-pattern '\(text)' is not a pattern ssvc matches (a regular expression without backtracking): \(error)")
            }
        }
        var usable: [(release: Release, version: String)] = []
        var skipped = 0
        for release in releases where !release.draft && (settings.includePrereleases || !release.prerelease) {
            guard let version = try Self.version(of: release.tag, settings: settings, pattern: pattern) else { continue }
            guard DisplayText.versionProblem(version) == nil, (try? scheme.validate(version)) != nil else {
                skipped += 1
                continue
            }
            usable.append((release, version))
        }
        // Newest first; among equal versions, the first listed.
        let ordered = usable.enumerated().sorted { lhs, rhs in
            switch (try? scheme.compare(lhs.element.version, rhs.element.version)) ?? .same {
            case .newer: true
            case .older: false
            case .same: lhs.offset < rhs.offset
            }
        }.map(\.element)
        guard let (release, version) = ordered.first else {
            let kinds = settings.includePrereleases ? "no release that is not a draft" : "no release that is neither a draft nor a prerelease"
            let matching = settings.tagPattern.map { " and whose tag matches '\($0)'" } ?? ""
            throw .rejected("\(kinds)\(matching) among \(releases.count), with a version under the \(scheme.rawValue) scheme")
        }
        var decision = Decision(
            decided: true, latestVersion: version, availableSince: release.publishedAt,
            description: UpdateDescription(message: release.name, whatIsNew: release.body, targetUrl: release.url)
        )
        if skipped > 0 { decision.notes.append("\(skipped) releases skipped: their tags are not \(scheme.rawValue) versions") }
        try decision.compare(context.running, with: version)
        if decision.updateAvailable, !context.running.key.isEmpty {
            decision.otherNewer = Self.otherNewer(ordered.dropFirst(), than: context.running)
        }
        return decision
    }

    /// The most releases kept beside the newest for limits to choose from:
    /// a machine held a major version back still finds the newest of its
    /// line among a project's last 64 releases, and the state file stays
    /// small (about 8 KiB an app at most).
    public static let otherNewerKept = 64

    /// The distinct versions of `releases` (newest first) that are newer
    /// than `running`, at most `otherNewerKept`; nil when there is none.
    static func otherNewer(_ releases: ArraySlice<(release: Release, version: String)>, than running: RunningVersion) -> [NewerRelease]? {
        var kept: [NewerRelease] = []
        for (release, version) in releases where kept.count < otherNewerKept {
            guard (try? running.scheme.compare(version, running.key)) == .newer else { break }
            if let last = kept.last, (try? running.scheme.compare(version, last.version)) == .same { continue }
            kept.append(NewerRelease(
                version: version, availableSince: release.publishedAt, name: release.name.map { DisplayText.cut($0, bytes: 64) },
                targetUrl: release.url.map { DisplayText.cut($0, bytes: 256) }
            ))
        }
        return kept.isEmpty ? nil : kept
    }
}
