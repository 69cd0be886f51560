import FoundationEssentials
import SSVCCore
import SSVCPosix

/// An app: an `[[app]]` table of the main file, or a file of the apps directory.
extension ConfigurationLoader {
    /// The app keys, the inputs' included; ssvcd.toml(5) describes each
    /// (a test holds it to that).
    static let appKeys = AppKeys.all + AppInputs.keys + WindowKeys.all
    static let appKeyNames = KeyNames(appKeys)
    /// Every input's keys: an app that sets none uses no input (`AppInput.settings`).
    static let inputKeyNames = Set(AppInputs.keys.map(\.name))
    /// `[daemon]` keys no app may set.
    static let daemonOnlyKeys = Set(daemonKeys.map(\.name)).subtracting(appKeyNames.set)

    /// Headers an app may not set: the request's framing, its target, and
    /// the credentials, which have keys of their own.
    static let reservedHeaders: Set<String> = ["authorization", "proxy-authorization", "host", "content-length", "transfer-encoding", "connection"]

    static func app(
        _ table: ConfigTable, file: String, defaultName: String?, daemon: DaemonSettings, environment: [String: String]
    ) throws(ConfigurationError) -> AppConfiguration {
        let reader = TableReader(table, file: file, key: defaultName == nil ? "app" : nil)
        try rejectMisplaced(reader, appFile: defaultName != nil)
        try reader.rejectUnknown(appKeyNames)
        guard let name = try reader.read(AppKeys.name) ?? defaultName else {
            throw reader.error(AppKeys.name, "missing")
        }
        guard !name.isEmpty, name.utf8.allSatisfy({ isNameByte($0) }) else {
            throw reader.error(AppKeys.name, "'\(name)' may hold only letters, digits, '.', '_' and '-'")
        }
        let url = try reader.read(AppKeys.url)
        if let url, let problem = AppKeyRules.urlProblem(url) { throw reader.error(AppKeys.url, problem) }
        let format = try reader.value(AppKeys.format)
        let sources = [
            try reader.read(AppKeys.version).map(VersionSource.fixed),
            try reader.path(AppKeys.versionFile).map(VersionSource.file),
            try reader.read(AppKeys.versionCommand).map(VersionSource.command),
            try reader.read(AppKeys.versionPackage).map { VersionSource.package($0, database: DpkgDatabase.statusPath(environment: environment)) },
        ].compactMap { $0 }
        guard sources.count == 1 else {
            throw reader.error(AppKeys.version, sources.isEmpty
                ? "missing: set one of version, version-file, version-command, version-package"
                : "set only one of version, version-file, version-command, version-package")
        }
        if case let .package(name, _) = sources[0], let problem = AppKeyRules.versionPackageProblem(name) {
            throw reader.error(AppKeys.versionPackage, problem)
        }
        if case let .command(argv) = sources[0], argv.isEmpty || argv[0].isEmpty {
            throw reader.error(AppKeys.versionCommand, "needs at least the program")
        }
        let packaged = if case .package = sources[0] { true } else { false }
        let scheme = try reader.read(AppKeys.versionScheme) ?? (packaged ? .debian : format.defaultVersionScheme)
        if case let .fixed(key) = sources[0] {
            if let problem = DisplayText.versionProblem(key) { throw reader.error(AppKeys.version, "not a version string: \(problem)") }
            do { try scheme.validate(key) } catch { throw reader.error(AppKeys.version, error.description) }
        }
        let properties = try reader.value(AppKeys.properties)
        for key in properties.keys.sorted() where !key.hasPrefix("x-") {
            throw reader.error("\(AppKeys.properties.name).\(key)", "extra properties must be named x-…")
        }
        let minAge = try reader.read(AppKeys.minReleaseAgeDays)
        if minAge != nil, let problem = AppKeyRules.formatProblem(key: AppKeys.minReleaseAgeDays.name, format: format) {
            throw reader.error(AppKeys.minReleaseAgeDays, problem)
        }
        let tokenFile = try reader.path(AppKeys.bearerTokenFile)
        let tokenCredential = try reader.read(AppKeys.bearerTokenCredential)
        if tokenFile != nil && tokenCredential != nil {
            throw reader.error(AppKeys.bearerTokenFile, "set only one of bearer-token-file, bearer-token-credential")
        }
        let token = tokenFile.map(SecretSource.file) ?? tokenCredential.map(SecretSource.credential)
        if token != nil, let url {
            guard url.hasPrefix("https://") || (url.hasPrefix("http://") && FetchTarget.isLoopback(url)) else {
                throw reader.error(
                    tokenFile != nil ? AppKeys.bearerTokenFile : AppKeys.bearerTokenCredential,
                    "a token goes only to an https URL or a loopback address, not '\(URLText.masked(url))'"
                )
            }
        }
        var headers: [RequestHeader] = []
        for (header, value) in try reader.value(AppKeys.headers).sorted(by: { $0.key < $1.key }) {
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
        let schedule = try reader.value(AppKeys.schedule)
        let versionNumber = try reader.read(AppKeys.versionNumber).map(UInt64.init)
        let appID = try reader.read(AppKeys.appID) ?? name
        func limit(_ key: String, _ text: String) throws(ConfigurationError) -> String {
            if let problem = AppKeyRules.versionLimitProblem(text, scheme: scheme) { throw reader.error(key, problem) }
            return text
        }
        var maxVersion: String?
        if let text = try reader.read(AppKeys.maxVersion) { maxVersion = try limit(AppKeys.maxVersion.name, text) }
        var ignoreVersions: [String] = []
        for (index, text) in (try reader.read(AppKeys.ignoreVersions) ?? []).enumerated() {
            ignoreVersions.append(try limit("\(AppKeys.ignoreVersions.name)[\(index)]", text))
        }
        if let problem = AppKeyRules.appIDProblem(appID, format: format) { throw reader.error(AppKeys.appID, problem) }
        let context = InputContext(appID: appID, packaged: packaged, url: url, dpkgStatus: DpkgDatabase.statusPath(environment: environment))
        var inputs = InputSettings()
        // Most apps use no input: none is asked to read a table without its keys.
        if table.contains(where: { inputKeyNames.contains($0.key) }) {
            for input in AppInputs.all { try input.load(reader, app: context, into: &inputs) }
        }
        // public-keys sign the documents, and what an input reads as a
        // document (at signature-url for an app without url).
        let signature = try signatureRequirement(reader, url: url ?? AppInputs.all.compactMap { $0.source(in: inputs) }.first ?? "")
        if let signature {
            for input in AppInputs.all { try input.sign(&inputs, by: signature, app: context, reader: reader) }
        }
        if url == nil, inputs.isEmpty {
            throw reader.error(AppKeys.url, "missing (an app may leave it out only with \(AppInputs.enabling))")
        }
        return AppConfiguration(
            name: name, url: url, format: format,
            schedule: schedule,
            version: sources[0],
            versionNumber: versionNumber,
            versionScheme: scheme,
            appID: appID,
            language: try reader.read(AppKeys.language),
            country: try reader.read(AppKeys.country),
            properties: properties,
            query: try reader.value(AppKeys.query).sorted { $0.key < $1.key }.map { QueryParameter(name: $0.key, value: $0.value) },
            minReleaseAgeDays: minAge.map(UInt.init),
            proxy: try proxySetting(reader, AppKeys.proxy),
            bearerToken: token,
            headers: headers,
            clientIdentity: try clientIdentity(reader, environment: environment),
            signature: url == nil ? nil : signature,
            phasedRolloutSeconds: try reader.read(AppKeys.phasedRolloutSeconds),
            offerWindows: try appWindows(reader, daemon: daemon),
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
        for (key, _) in reader.table where daemonOnlyKeys.contains(key) {
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
            settings.github.includePrereleases = try reader.value(AppKeys.includePrereleases)
            settings.github.tagPrefix = try reader.value(AppKeys.tagPrefix)
            if let pattern = try reader.read(AppKeys.tagPattern) {
                if let problem = AppKeyRules.tagPatternProblem(pattern) { throw reader.error(AppKeys.tagPattern, problem) }
                settings.github.tagPattern = pattern
            }
        }
        if format == .json {
            func pointer(_ key: ConfigurationKey<String>) throws(ConfigurationError) -> JSONPointer? {
                guard let text = try reader.read(key) else { return nil }
                do {
                    return try JSONPointer(parsing: text)
                } catch {
                    throw reader.error(key, error.description)
                }
            }
            let version = try pointer(AppKeys.versionPointer)
            if let problem = AppKeyRules.versionPointerProblem(given: version != nil, format: format) {
                throw reader.error(AppKeys.versionPointer, problem)
            }
            if let version {
                settings.pointers = PointerDocument.Settings(
                    version: version, date: try pointer(AppKeys.datePointer), minimumVersion: try pointer(AppKeys.minimumVersionPointer),
                    url: try pointer(AppKeys.urlPointer), rolloutPercentage: try pointer(AppKeys.rolloutPercentagePointer)
                )
            }
        }
        return settings
    }

    /// `public-keys`, `signature-url` and `max-signature-age-days`: nil
    /// when the app's documents need no signature.
    private static func signatureRequirement(_ reader: TableReader, url: String) throws(ConfigurationError) -> SignatureRequirement? {
        let texts = try reader.read(AppKeys.publicKeys)
        let signatureURL = try reader.read(AppKeys.signatureURL)
        let maxAge = try reader.read(AppKeys.maxSignatureAgeDays)
        guard let texts else {
            if signatureURL != nil { throw reader.error(AppKeys.signatureURL, "needs public-keys, the keys its signatures are checked with") }
            if maxAge != nil { throw reader.error(AppKeys.maxSignatureAgeDays, "needs public-keys, the keys its signatures are checked with") }
            return nil
        }
        guard !texts.isEmpty else { throw reader.error(AppKeys.publicKeys, "empty: list at least one key, or leave public-keys out") }
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
            throw reader.error(AppKeys.signatureURL, problem)
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
