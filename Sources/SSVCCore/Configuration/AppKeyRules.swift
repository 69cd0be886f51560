import FoundationEssentials

/// The rules an app's values obey wherever they are given: as app keys,
/// which ssvcd's configuration loader reads, and as the options of
/// `ssvcctl evaluate` named after them. Each rule says what is wrong in
/// words that leave out the key's name, or nil when nothing is; the caller
/// puts the name in front as it spells it (`app.tag-pattern: …`,
/// `--tag-pattern: …`), so both say the same after it. Numbers keep to
/// their keys' ranges (`AppKeys`); a JSON Pointer's rule is `JSONPointer(parsing:)`'s.
package enum AppKeyRules {
    /// The keys that apply to one format alone, in the order they are checked.
    package static let formatKeys: [(key: String, format: ResponseFormat)] = [
        (AppKeys.includePrereleases.name, .github), (AppKeys.tagPrefix.name, .github), (AppKeys.tagPattern.name, .github),
        (AppKeys.versionPointer.name, .json), (AppKeys.datePointer.name, .json), (AppKeys.minimumVersionPointer.name, .json),
        (AppKeys.urlPointer.name, .json), (AppKeys.rolloutPercentagePointer.name, .json),
        (AppKeys.minReleaseAgeDays.name, .itunes),
    ]

    /// Why `key` may not be set for an app of `format`: it belongs to
    /// another format. Nil when it may.
    package static func formatProblem(key: String, format: ResponseFormat) -> String? {
        guard let owner = formatKeys.first(where: { $0.key == key })?.format, owner != format else { return nil }
        return "applies to format \(owner.rawValue) only"
    }

    /// Why `text` will not do as `max-version` or one of `ignore-versions`:
    /// it is no version under the app's scheme, or no version string.
    package static func versionLimitProblem(_ text: String, scheme: VersionScheme) -> String? {
        if let problem = DisplayText.versionProblem(text) { return "not a version string: \(problem)" }
        do { try scheme.validate(text) } catch { return error.description }
        return nil
    }

    /// Why an app of `format` cannot go without `version-pointer`: `json`
    /// finds its version only through it.
    package static func versionPointerProblem(given: Bool, format: ResponseFormat) -> String? {
        format == .json && !given ? "missing: format json needs it (such as \"/info/version\")" : nil
    }

    /// Why `appID` will not do for an app of `format`: a Turkcell document
    /// is for the app whose id equals its `packageName`, never the empty one.
    package static func appIDProblem(_ appID: String?, format: ResponseFormat) -> String? {
        format == .turkcell && (appID ?? "").isEmpty
            ? "format turkcell needs one: the document's packageName must equal it" : nil
    }

    /// Why `pattern` cannot pick the version out of a tag: it is no pattern
    /// ssvc matches in linear time, or it has no capture group to hold the
    /// version.
    package static func tagPatternProblem(_ pattern: String) -> String? {
        let compiled: LinearPattern
        do {
            compiled = try LinearPattern(pattern)
        } catch {
            return "'\(pattern)' is not a pattern ssvc matches (a regular expression without backtracking): \(error)"
        }
        return compiled.captureCount >= 1 ? nil : "'\(pattern)' needs a capture group for the version"
    }

    /// Why `name` is not a Debian package whose version dpkg could hold:
    /// Debian policy's names, with an optional `:architecture`.
    package static func versionPackageProblem(_ name: String) -> String? {
        isPackageName(name)
            ? nil : "'\(name)' is not a Debian package name (lower-case letters, digits, '+', '-', '.', and an optional ':architecture')"
    }

    private static func isPackageName(_ text: String) -> Bool {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = Array(parts[0].utf8)
        func lowerOrDigit(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        guard name.count >= 2, lowerOrDigit(name[0]), name.allSatisfy({ lowerOrDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }) else { return false }
        return parts.count == 1 || (!parts[1].isEmpty && parts[1].utf8.allSatisfy { lowerOrDigit($0) || $0 == 0x2D })
    }

    /// Why `url` cannot be fetched, after the URL quoted with its user
    /// information masked: not https, http or file, not a whole URL (no
    /// host, a port past 65535), or holding a space or a control
    /// character, which a URL carries percent-encoded. The rule of `url`
    /// and `signature-url`.
    package static func urlProblem(_ url: String) -> String? {
        fetchProblem(url).map { "'\(URLText.masked(url))': \($0)" }
    }

    /// What is wrong with `advisories-url`: a URL as `url` takes, and a
    /// `file://` one names an export (`.zip`) or a folder of records.
    package static func advisoriesURLProblem(_ url: String) -> String? {
        urlProblem(url)
    }

    /// What is wrong with an ecosystem, a package name or an advisory id
    /// given in the configuration: empty, over 256 bytes, or holding a
    /// control character; nil when nothing is.
    package static func advisoryNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "empty" }
        if name.utf8.count > OSVRecord.maximumIdentifierBytes { return "longer than \(OSVRecord.maximumIdentifierBytes) bytes" }
        if name.unicodeScalars.contains(where: DisplayText.isControl) {
            // Cut, not escaped: whoever prints the message escapes it, once.
            return "'\(DisplayText.cut(name, bytes: 60))' holds a control character"
        }
        return nil
    }

    private static func fetchProblem(_ url: String) -> String? {
        if url.unicodeScalars.contains(where: { $0 == " " || DisplayText.isControl($0) }) {
            return "holds a space or a control character; write it percent-encoded (%20)"
        }
        let lowered = url.lowercased()
        if lowered.hasPrefix("file://") {
            return url.count > "file://".count && URL(string: url)?.path.isEmpty == false ? nil : "not a file URL with a path"
        }
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else { return "not an https, http or file URL" }
        return httpURLProblem(url)
    }

    /// What keeps an http or https `url` from being fetched, in words; nil
    /// when nothing does. The fetcher asks it of every redirect's target
    /// too. The port is checked here: NIO traps on one past 65535.
    package static func httpURLProblem(_ url: String) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else { return "not a URL" }
        guard scheme == "http" || scheme == "https" else { return "not an http or https URL" }
        guard let host = parsed.host(percentEncoded: false), !host.isEmpty else { return "no host" }
        if let port = parsed.port, !(1...65_535).contains(port) { return "port \(port) is not from 1 to 65535" }
        return nil
    }
}
