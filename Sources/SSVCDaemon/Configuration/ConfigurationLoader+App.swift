import FoundationEssentials
import SSVCCore
import SSVCPosix

/// An app: an `[[app]]` table of the main file, or a file of the apps directory.
extension ConfigurationLoader {
    /// The app keys; ssvcd.toml(5) describes each (a test holds it to that).
    static let appKeys = [
        "name", "url", "format", "schedule", "version", "version-file", "version-command", "version-number",
        "version-scheme", "app-id", "language", "country", "properties", "query", "min-release-age-days",
        "proxy", "bearer-token-file", "bearer-token-credential", "headers", "client-certificate", "client-key",
        "client-key-credential", "public-keys", "signature-url", "max-signature-age-days", "phased-rollout-seconds",
        "version-package", "include-prereleases", "tag-prefix", "tag-pattern", "version-pointer", "date-pointer",
        "minimum-version-pointer", "url-pointer", "rollout-percentage-pointer", "max-version", "ignore-versions",
    ] + AppInputs.keys

    /// Headers an app may not set: the request's framing, its target, and
    /// the credentials, which have keys of their own.
    static let reservedHeaders: Set<String> = ["authorization", "proxy-authorization", "host", "content-length", "transfer-encoding", "connection"]

    static func app(
        _ table: ConfigTable, file: String, defaultName: String?, daemon: DaemonSettings, environment: [String: String]
    ) throws(ConfigurationError) -> AppConfiguration {
        let reader = TableReader(table, file: file, key: defaultName == nil ? "app" : nil)
        try rejectMisplaced(reader, appFile: defaultName != nil)
        try reader.rejectUnknown(appKeys)
        guard let name = try reader.string("name") ?? defaultName else {
            throw reader.error("name", "missing")
        }
        guard !name.isEmpty, name.utf8.allSatisfy({ isNameByte($0) }) else {
            throw reader.error("name", "'\(name)' may hold only letters, digits, '.', '_' and '-'")
        }
        let url = try reader.string("url")
        if let url, let problem = AppKeyRules.urlProblem(url) { throw reader.error("url", problem) }
        let format = try reader.choice("format", ResponseFormat.self) ?? .ssvc
        let sources = [
            try reader.string("version").map(VersionSource.fixed),
            try reader.path("version-file").map(VersionSource.file),
            try reader.stringArray("version-command").map(VersionSource.command),
            try reader.string("version-package").map { VersionSource.package($0, database: DpkgDatabase.statusPath(environment: environment)) },
        ].compactMap { $0 }
        guard sources.count == 1 else {
            throw reader.error("version", sources.isEmpty
                ? "missing: set one of version, version-file, version-command, version-package"
                : "set only one of version, version-file, version-command, version-package")
        }
        if case let .package(name, _) = sources[0], let problem = AppKeyRules.versionPackageProblem(name) {
            throw reader.error("version-package", problem)
        }
        if case let .command(argv) = sources[0], argv.isEmpty || argv[0].isEmpty {
            throw reader.error("version-command", "needs at least the program")
        }
        let packaged = if case .package = sources[0] { true } else { false }
        let scheme = try reader.choice("version-scheme", VersionScheme.self) ?? (packaged ? .debian : format.defaultVersionScheme)
        if case let .fixed(key) = sources[0] {
            if let problem = DisplayText.versionProblem(key) { throw reader.error("version", "not a version string: \(problem)") }
            do { try scheme.validate(key) } catch { throw reader.error("version", error.description) }
        }
        let properties = try reader.stringTable("properties")
        for key in properties.keys.sorted() where !key.hasPrefix("x-") {
            throw reader.error("properties.\(key)", "extra properties must be named x-…")
        }
        let minAge = try reader.integer("min-release-age-days", in: ConfigurationRanges.releaseAgeDays)
        if minAge != nil, let problem = AppKeyRules.formatProblem(key: "min-release-age-days", format: format) {
            throw reader.error("min-release-age-days", problem)
        }
        let tokenFile = try reader.path("bearer-token-file")
        let tokenCredential = try reader.string("bearer-token-credential")
        if tokenFile != nil && tokenCredential != nil {
            throw reader.error("bearer-token-file", "set only one of bearer-token-file, bearer-token-credential")
        }
        let token = tokenFile.map(SecretSource.file) ?? tokenCredential.map(SecretSource.credential)
        if token != nil, let url {
            guard url.hasPrefix("https://") || (url.hasPrefix("http://") && FetchTarget.isLoopback(url)) else {
                throw reader.error(
                    tokenFile != nil ? "bearer-token-file" : "bearer-token-credential",
                    "a token goes only to an https URL or a loopback address, not '\(URLText.masked(url))'"
                )
            }
        }
        var headers: [RequestHeader] = []
        for (header, value) in try reader.stringTable("headers").sorted(by: { $0.key < $1.key }) {
            guard !header.isEmpty, header.utf8.allSatisfy(isTokenByte) else {
                throw reader.error("headers.\(header)", "not a header name")
            }
            guard !reservedHeaders.contains(header.lowercased()) else {
                throw reader.error("headers.\(header)", "may not be set here (use bearer-token-file or bearer-token-credential for credentials)")
            }
            guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw reader.error("headers.\(header)", "the value holds a control character")
            }
            headers.append(RequestHeader(name: header, value: value))
        }
        let schedule = try reader.choice("schedule", Schedule.self) ?? .daily
        let versionNumber = try reader.integer("version-number", in: ConfigurationRanges.versionNumber).map(UInt64.init)
        let appID = try reader.string("app-id") ?? name
        func limit(_ key: String, _ text: String) throws(ConfigurationError) -> String {
            if let problem = AppKeyRules.versionLimitProblem(text, scheme: scheme) { throw reader.error(key, problem) }
            return text
        }
        var maxVersion: String?
        if let text = try reader.string("max-version") { maxVersion = try limit("max-version", text) }
        var ignoreVersions: [String] = []
        for (index, text) in (try reader.stringArray("ignore-versions") ?? []).enumerated() {
            ignoreVersions.append(try limit("ignore-versions[\(index)]", text))
        }
        if let problem = AppKeyRules.appIDProblem(appID, format: format) { throw reader.error("app-id", problem) }
        let context = InputContext(appID: appID, packaged: packaged, url: url)
        var inputs = InputSettings()
        for input in AppInputs.all { try input.load(reader, app: context, into: &inputs) }
        // public-keys sign the documents, and what an input reads as a
        // document (at signature-url for an app without url).
        let signature = try signatureRequirement(reader, url: url ?? AppInputs.all.compactMap { $0.source(in: inputs) }.first ?? "")
        if let signature {
            for input in AppInputs.all { try input.sign(&inputs, by: signature, app: context, reader: reader) }
        }
        if url == nil, inputs.isEmpty {
            throw reader.error("url", "missing (an app may leave it out only with \(AppInputs.enabling))")
        }
        return AppConfiguration(
            name: name, url: url, format: format,
            schedule: schedule,
            version: sources[0],
            versionNumber: versionNumber,
            versionScheme: scheme,
            appID: appID,
            language: try reader.string("language"),
            country: try reader.string("country"),
            properties: properties,
            query: try reader.stringTable("query").sorted { $0.key < $1.key }.map { QueryParameter(name: $0.key, value: $0.value) },
            minReleaseAgeDays: minAge.map(UInt.init),
            proxy: try proxySetting(reader, "proxy"),
            bearerToken: token,
            headers: headers,
            clientIdentity: try clientIdentity(reader, environment: environment),
            signature: url == nil ? nil : signature,
            phasedRolloutSeconds: try reader.integer("phased-rollout-seconds", in: ConfigurationRanges.rolloutSeconds),
            maxVersion: maxVersion,
            ignoreVersions: ignoreVersions,
            formatSettings: try formatSettings(reader, format: format),
            inputs: inputs,
            source: file
        )
    }

    /// Keys that are known, but not here: an `[[app]]` or `[daemon]` table
    /// pasted into an app file, a `[daemon]` key among an app's. Each gets
    /// an error saying where it belongs, not just "unknown key".
    static func rejectMisplaced(_ reader: TableReader, appFile: Bool) throws(ConfigurationError) {
        if appFile, reader.table["app"] != nil {
            throw reader.error("app", "an app file holds the app keys at top level, without [[app]] (its name defaults to the file's name)")
        }
        if appFile, reader.table["daemon"] != nil {
            throw reader.error("daemon", "[daemon] belongs in the main file (ssvcd.toml), not in an app file")
        }
        for key in daemonKeys where reader.table[key] != nil && !appKeys.contains(key) {
            throw reader.error(key, "is a [daemon] key: set it in [daemon] of the main file, for every app")
        }
    }

    /// `github`'s and `json`'s settings; a format's own keys
    /// (`AppKeyRules.formatKeys`) are refused on any other format.
    static func formatSettings(_ reader: TableReader, format: ResponseFormat) throws(ConfigurationError) -> FormatSettings {
        for (key, _) in AppKeyRules.formatKeys where reader.table[key] != nil {
            if let problem = AppKeyRules.formatProblem(key: key, format: format) { throw reader.error(key, problem) }
        }
        var settings = FormatSettings()
        if format == .github {
            settings.github.includePrereleases = try reader.bool("include-prereleases") ?? false
            settings.github.tagPrefix = try reader.string("tag-prefix") ?? GitHubReleases.Settings.defaultTagPrefix
            if let pattern = try reader.string("tag-pattern") {
                if let problem = AppKeyRules.tagPatternProblem(pattern) { throw reader.error("tag-pattern", problem) }
                settings.github.tagPattern = pattern
            }
        }
        if format == .json {
            func pointer(_ key: String) throws(ConfigurationError) -> JSONPointer? {
                guard let text = try reader.string(key) else { return nil }
                do {
                    return try JSONPointer(parsing: text)
                } catch {
                    throw reader.error(key, error.description)
                }
            }
            let version = try pointer("version-pointer")
            if let problem = AppKeyRules.versionPointerProblem(given: version != nil, format: format) {
                throw reader.error("version-pointer", problem)
            }
            if let version {
                settings.pointers = PointerDocument.Settings(
                    version: version, date: try pointer("date-pointer"), minimumVersion: try pointer("minimum-version-pointer"),
                    url: try pointer("url-pointer"), rolloutPercentage: try pointer("rollout-percentage-pointer")
                )
            }
        }
        return settings
    }

    /// `public-keys`, `signature-url` and `max-signature-age-days`: nil
    /// when the app's documents need no signature.
    private static func signatureRequirement(_ reader: TableReader, url: String) throws(ConfigurationError) -> SignatureRequirement? {
        let texts = try reader.stringArray("public-keys")
        let signatureURL = try reader.string("signature-url")
        let maxAge = try reader.integer("max-signature-age-days", in: ConfigurationRanges.signatureAgeDays)
        guard let texts else {
            if signatureURL != nil { throw reader.error("signature-url", "needs public-keys, the keys its signatures are checked with") }
            if maxAge != nil { throw reader.error("max-signature-age-days", "needs public-keys, the keys its signatures are checked with") }
            return nil
        }
        guard !texts.isEmpty else { throw reader.error("public-keys", "empty: list at least one key, or leave public-keys out") }
        var keys: [Minisign.PublicKey] = []
        for (index, text) in texts.enumerated() {
            let key: Minisign.PublicKey
            do { key = try Minisign.PublicKey(parsing: text) } catch { throw reader.error("public-keys[\(index)]", error.description) }
            guard !keys.contains(where: { $0.keyID == key.keyID }) else {
                throw reader.error("public-keys[\(index)]", "a second key with id \(key.keyID)")
            }
            keys.append(key)
        }
        if let signatureURL, let problem = AppKeyRules.urlProblem(signatureURL) {
            throw reader.error("signature-url", problem)
        }
        return SignatureRequirement(publicKeys: keys, url: signatureURL ?? SignatureRequirement.defaultURL(for: url), maxAgeDays: maxAge)
    }

    /// RFC 9110's token characters, of which header names are made.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isNameByte(byte) || "!#$%&'*+^`|~".utf8.contains(byte)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
