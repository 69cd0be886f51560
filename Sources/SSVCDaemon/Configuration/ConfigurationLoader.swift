@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore
import SSVCPosix

/// Reads `ssvcd.toml` and the apps directory into a `Configuration`,
/// refusing anything it does not understand: an unknown key is more likely a
/// typo than a wish to be ignored.
public enum ConfigurationLoader {
    public static let defaultMainFile = "/etc/ssvc/ssvcd.toml"

    /// The range of each number a file may set (ssvcd.toml(5) and the
    /// README list them): outside it a file is refused, never a number
    /// carried into arithmetic that would overflow.
    public enum Limits {
        public static let idleTimeoutSeconds = 1...86_400
        public static let timeoutSeconds = 0.001...3_600.0
        public static let maxResponseBytes = 1...(64 << 20)
        /// The spreading windows and min-interval-seconds: up to 31 days.
        public static let windowSeconds = 0...2_678_400
        /// min-release-age-days and max-signature-age-days: up to 100 years.
        public static let days = 0...36_500
        /// phased-rollout-seconds: up to 366 days.
        public static let rolloutSeconds = 0...Int(PhasedRollout.maximumWindowSeconds)
        /// rollout-position: a fraction of the window.
        public static let rolloutPosition = 0.0...1.0
    }
    public static let defaultAppsDirectory = "/etc/ssvc/apps.d"

    /// What the command line says.
    public struct Overrides: Sendable {
        public var mainFile: String?
        public var stateDirectory: String?
        public var socketPath: String?

        public init(mainFile: String? = nil, stateDirectory: String? = nil, socketPath: String? = nil) {
            self.mainFile = mainFile
            self.stateDirectory = stateDirectory
            self.socketPath = socketPath
        }
    }

    /// Loads everything. The main file may be absent when not named on the
    /// command line (`unnamedMainFile` is the one read then); relative paths
    /// in a file are relative to its folder.
    public static func load(
        _ overrides: Overrides, environment: [String: String], unnamedMainFile: String = defaultMainFile
    ) throws(ConfigurationError) -> Configuration {
        let mainFile = overrides.mainFile ?? unnamedMainFile
        var root = ConfigTable()
        var mainText = ""
        if overrides.mainFile != nil || FileSystem.exists(mainFile) {
            let document = try ConfigurationDocument.read(mainFile)
            root = try document.table()
            mainText = document.text
        }
        try TableReader(root, file: mainFile, key: nil).rejectUnknown(["daemon", "app"])
        // The command line's paths apply before anything is derived from
        // them (the metrics file's default folder is the socket's).
        var daemon: DaemonSettings
        do {
            daemon = try daemonSettings(root, file: mainFile, environment: environment, socketOverride: overrides.socketPath)
        } catch {
            // Where in the main file: the [daemon] table's line for the key.
            var located = error
            if located.line == nil { located.place = KeyLocator.daemonLine(of: error.key, in: mainText).map { "line \($0)" } }
            throw located
        }
        if let state = overrides.stateDirectory { daemon.stateDirectory = state }

        var apps: [AppConfiguration] = []
        if let list = root["app"] {
            guard let array = list.array else {
                throw ConfigurationError(file: mainFile, key: "app", problem: "expected [[app]] tables")
            }
            for (index, element) in array.enumerated() {
                guard let table = element.table else {
                    throw ConfigurationError(file: mainFile, key: "app[\(index)]", problem: "expected a table")
                }
                do {
                    apps.append(try app(table, file: mainFile, defaultName: nil, daemon: daemon, environment: environment))
                } catch {
                    // Which app, and where: the third [[app]] of a long file is hard to find.
                    var located = error
                    let name = table["name"]?.string.map { "'\($0)'" } ?? "number \(index + 1)"
                    let line = KeyLocator.line(of: error.key, appTable: index, in: mainText)
                    located.place = "[[app]] \(name)" + (line.map { ", line \($0)" } ?? "")
                    throw located
                }
            }
        }
        let appsDirectory = daemon.appsDirectory
        if root["daemon"]?.table?["apps-dir"] != nil, !FileSystem.exists(appsDirectory) {
            throw ConfigurationError(file: mainFile, key: "daemon.apps-dir", problem: "\(appsDirectory) does not exist")
        }
        let (files, skipped) = try appFiles(appsDirectory)
        for file in files {
            let document = try ConfigurationDocument.read(file)
            let table = try document.table()
            let stem = String(file.split(separator: "/").last!.dropLast(".toml".count))
            do {
                apps.append(try app(table, file: file, defaultName: stem, daemon: daemon, environment: environment))
            } catch {
                var located = error
                located.place = KeyLocator.line(of: error.key, appTable: nil, in: document.text).map { "line \($0)" }
                throw located
            }
        }
        var seen: [String: String] = [:]
        for app in apps {
            if let other = seen[app.name] {
                throw ConfigurationError(file: app.source, key: "name", problem: "app '\(app.name)' is also defined in \(other)")
            }
            seen[app.name] = app.source
        }
        return Configuration(
            daemon: daemon, apps: apps,
            warnings: skipped
        )
    }

    /// `*.toml` in `directory`, in name order, and a warning for each other
    /// file there that looks meant for it but is skipped for its name
    /// (`foo.conf`, `bar.TOML`, a name that is not UTF-8, shown escaped);
    /// hidden files (editors' swap files) and backups ending in `~` are
    /// skipped silently. A missing directory holds no apps.
    static func appFiles(_ directory: String) throws(ConfigurationError) -> (files: [String], skipped: [String]) {
        let names: [String]
        let undecodable: [String]
        do {
            (names, undecodable) = try FileSystem.listing(in: directory) ?? ([], [])
        } catch {
            throw ConfigurationError(file: directory, problem: "cannot read the apps directory: \(error)")
        }
        let path = { (name: String) in directory.hasSuffix("/") ? directory + name : directory + "/" + name }
        let visible = names.filter { !$0.hasPrefix(".") && !$0.hasSuffix("~") }.sorted()
        let read = visible.filter { $0.hasSuffix(".toml") && $0.count > ".toml".count }
        let skipped = visible.filter { !read.contains($0) && !FileSystem.isDirectory(path($0)) }
        let warnings = skipped.map { "\(path($0)): skipped: only files named *.toml are read from the apps directory" }
            + undecodable.sorted().map { "\(path($0)): skipped: the file's name is not UTF-8; rename it" }
        return (read.map(path), warnings)
    }

    static func daemonSettings(
        _ root: ConfigTable, file: String, environment: [String: String], socketOverride: String? = nil
    ) throws(ConfigurationError) -> DaemonSettings {
        let table = try TableReader(root, file: file, key: nil).table("daemon") ?? TableReader(ConfigTable(), file: file, key: "daemon")
        try table.rejectUnknown(daemonKeys)
        let locale = LocaleSettings.fromEnvironment(environment)
        let stateDefault = environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? "/var/lib/ssvc"
        let caFile = try table.path("ca-file")
        if let caFile {
            do {
                _ = try Fetcher.certificates(caFile)
            } catch let error as BoundedReader.Failure {
                throw ConfigurationError(file: file, key: "daemon.ca-file", problem: error.code == ENOENT ? "\(caFile) does not exist" : error.description)
            } catch let error as Fetcher.NoCertificate {
                throw ConfigurationError(file: file, key: "daemon.ca-file", problem: error.description)
            } catch {
                throw ConfigurationError(file: file, key: "daemon.ca-file", problem: "\(caFile): not PEM certificates (\(error))")
            }
        }
        let controlGroup = try table.string("control-group")
        var controlGroupID: UInt32?
        if let controlGroup {
            guard let entry = getgrnam(controlGroup) else {
                throw ConfigurationError(file: file, key: "daemon.control-group", problem: "no group '\(controlGroup)' on this machine")
            }
            guard entry.pointee.gr_gid != 0 else {
                throw ConfigurationError(file: file, key: "daemon.control-group", problem: "'\(controlGroup)' is gid 0: root may already; name another group")
            }
            controlGroupID = entry.pointee.gr_gid
        }
        let daemonProxy = try proxySetting(table, "proxy")
        if daemonProxy == .direct { throw table.error("proxy", "'none' is for an app; leave [daemon] proxy unset to go direct") }
        let daemonNoProxy = try table.stringArray("no-proxy").map(NoProxyList.init)
        // With [daemon] proxy set, the environment's proxy URLs are never
        // used, so a broken one there is no reason to refuse the start.
        let environmentProxies: ProxyEnvironment
        do {
            environmentProxies = daemonProxy == nil
                ? try ProxyEnvironment(environment)
                : try ProxyEnvironment(environment.filter { $0.key == "no_proxy" || $0.key == "NO_PROXY" })
        } catch {
            throw ConfigurationError(file: "environment", problem: error.description)
        }
        let configuredSocket = try table.path("socket")
        let socketPath = socketOverride ?? configuredSocket ?? "/run/ssvc/io.ssvc.Daemon"
        // The runtime folder: systemd's RuntimeDirectory=, else the socket's.
        let runtime = environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            ?? socketPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return DaemonSettings(
            stateDirectory: try table.path("state-dir") ?? stateDefault,
            socketPath: socketPath,
            appsDirectory: try table.path("apps-dir") ?? defaultAppsDirectory,
            language: try table.string("language") ?? locale.language,
            country: try table.string("country") ?? locale.country,
            controlGroup: controlGroup,
            controlGroupID: controlGroupID,
            idleTimeoutSeconds: try table.integer("idle-timeout-seconds", in: Limits.idleTimeoutSeconds) ?? 60,
            timeoutSeconds: try table.number("timeout-seconds", in: Limits.timeoutSeconds) ?? 30,
            maxResponseBytes: try table.integer("max-response-bytes", in: Limits.maxResponseBytes) ?? 1 << 20,
            caFile: caFile,
            policy: SchedulePolicy(
                firstCheckWindow: Double(try table.integer("first-check-window-seconds", in: Limits.windowSeconds) ?? 600),
                catchUpWindow: Double(try table.integer("catch-up-window-seconds", in: Limits.windowSeconds) ?? 3_600),
                minimumInterval: Double(try table.integer("min-interval-seconds", in: Limits.windowSeconds) ?? 30)
            ),
            proxy: ProxyPolicy(environment: environmentProxies, daemon: daemonProxy, daemonNoProxy: daemonNoProxy),
            clientIdentity: try clientIdentity(table, environment: environment),
            metricsFile: try optionalPath(table, "metrics-file", default: runtime + "/ssvc.prom"),
            hooksDirectory: try optionalPath(table, "hooks-dir", default: "/etc/ssvc/hooks.d"),
            rolloutPosition: try table.number("rollout-position", in: Limits.rolloutPosition)
        )
    }

    /// A path that `""` turns off; `fallback` when absent.
    private static func optionalPath(_ reader: TableReader, _ member: String, default fallback: String) throws(ConfigurationError) -> String? {
        if try reader.string(member) == "" { return nil }
        return try reader.path(member) ?? fallback
    }

    /// `proxy`: "none" or a proxy URL.
    static func proxySetting(_ reader: TableReader, _ member: String) throws(ConfigurationError) -> ProxyPolicy.Setting? {
        guard let text = try reader.string(member) else { return nil }
        do {
            return try ProxyPolicy.Setting(parsing: text)
        } catch {
            throw reader.error(member, error.description)
        }
    }

    /// `client-certificate` with `client-key` or `client-key-credential`,
    /// read and matched now.
    static func clientIdentity(_ reader: TableReader, environment: [String: String]) throws(ConfigurationError) -> ClientIdentity? {
        let certificate = try reader.path("client-certificate")
        let keyFile = try reader.path("client-key")
        let keyCredential = try reader.string("client-key-credential")
        if keyFile != nil && keyCredential != nil {
            throw reader.error("client-key", "set only one of client-key, client-key-credential")
        }
        let key = keyFile.map(SecretSource.file) ?? keyCredential.map(SecretSource.credential)
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (nil, _):
            throw reader.error("client-certificate", "missing: a client key needs its certificate")
        case (_, nil):
            throw reader.error("client-key", "missing: set client-key or client-key-credential for the client certificate")
        case let (certificate?, key?):
            do {
                return try ClientIdentity.load(certificateFile: certificate, key: key, environment: environment)
            } catch {
                throw reader.error("client-certificate", error.description)
            }
        }
    }

    /// The `[daemon]` keys; ssvcd.toml(5) describes each (a test holds it to that).
    static let daemonKeys = [
        "state-dir", "socket", "apps-dir", "language", "country", "control-group", "timeout-seconds",
        "max-response-bytes", "ca-file", "min-interval-seconds", "first-check-window-seconds", "catch-up-window-seconds",
        "idle-timeout-seconds", "proxy", "no-proxy", "client-certificate", "client-key", "client-key-credential",
        "metrics-file", "hooks-dir", "rollout-position",
    ]

    /// The app keys; ssvcd.toml(5) describes each (a test holds it to that).
    static let appKeys = [
        "name", "url", "format", "schedule", "version", "version-file", "version-command", "version-number",
        "version-scheme", "app-id", "language", "country", "properties", "query", "min-release-age-days",
        "proxy", "bearer-token-file", "bearer-token-credential", "headers", "client-certificate", "client-key",
        "client-key-credential", "public-keys", "signature-url", "max-signature-age-days", "phased-rollout-seconds",
        "version-package", "include-prereleases", "tag-prefix", "tag-pattern", "version-pointer", "date-pointer",
        "minimum-version-pointer", "url-pointer",
    ]

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
        guard let url = try reader.string("url") else { throw reader.error("url", "missing") }
        if let problem = urlProblem(url) { throw reader.error("url", "'\(URLText.masked(url))': \(problem)") }
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
        if case let .package(name, _) = sources[0], !isPackageName(name) {
            throw reader.error("version-package", "'\(name)' is not a Debian package name (lower-case letters, digits, '+', '-', '.', and an optional ':architecture')")
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
        let minAge = try reader.integer("min-release-age-days", in: Limits.days)
        if minAge != nil && format != .itunes {
            throw reader.error("min-release-age-days", "applies to format itunes only")
        }
        let tokenFile = try reader.path("bearer-token-file")
        let tokenCredential = try reader.string("bearer-token-credential")
        if tokenFile != nil && tokenCredential != nil {
            throw reader.error("bearer-token-file", "set only one of bearer-token-file, bearer-token-credential")
        }
        let token = tokenFile.map(SecretSource.file) ?? tokenCredential.map(SecretSource.credential)
        if token != nil {
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
        return AppConfiguration(
            name: name, url: url, format: format,
            schedule: try reader.choice("schedule", Schedule.self) ?? .daily,
            version: sources[0],
            versionNumber: try reader.integer("version-number", in: 0...Int.max).map(UInt64.init),
            versionScheme: scheme,
            appID: try reader.string("app-id") ?? name,
            language: try reader.string("language"),
            country: try reader.string("country"),
            properties: properties,
            query: try reader.stringTable("query").sorted { $0.key < $1.key }.map { QueryParameter(name: $0.key, value: $0.value) },
            minReleaseAgeDays: minAge.map(UInt.init),
            proxy: try proxySetting(reader, "proxy"),
            bearerToken: token,
            headers: headers,
            clientIdentity: try clientIdentity(reader, environment: environment),
            signature: try signatureRequirement(reader, url: url),
            phasedRolloutSeconds: try reader.integer("phased-rollout-seconds", in: Limits.rolloutSeconds),
            formatSettings: try formatSettings(reader, format: format),
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

    /// Debian policy's package names, with an optional `:architecture`.
    static func isPackageName(_ text: String) -> Bool {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = Array(parts[0].utf8)
        func lowerOrDigit(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        guard name.count >= 2, lowerOrDigit(name[0]), name.allSatisfy({ lowerOrDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }) else { return false }
        return parts.count == 1 || (!parts[1].isEmpty && parts[1].utf8.allSatisfy { lowerOrDigit($0) || $0 == 0x2D })
    }

    /// The keys of formats `github` and `json`, refused on any other format.
    static func formatSettings(_ reader: TableReader, format: ResponseFormat) throws(ConfigurationError) -> FormatSettings {
        let githubKeys = ["include-prereleases", "tag-prefix", "tag-pattern"]
        let jsonKeys = ["version-pointer", "date-pointer", "minimum-version-pointer", "url-pointer"]
        for (keys, owner) in [(githubKeys, ResponseFormat.github), (jsonKeys, .json)] where format != owner {
            for key in keys where reader.table[key] != nil {
                throw reader.error(key, "applies to format \(owner.rawValue) only")
            }
        }
        var settings = FormatSettings()
        if format == .github {
            settings.github.includePrereleases = try reader.bool("include-prereleases") ?? false
            settings.github.tagPrefix = try reader.string("tag-prefix") ?? "v"
            if let pattern = try reader.string("tag-pattern") {
                let compiled: LinearPattern
                do {
                    compiled = try LinearPattern(pattern)
                } catch {
                    throw reader.error("tag-pattern", "'\(pattern)' is not a pattern ssvc matches (a regular expression without backtracking): \(error)")
                }
                guard compiled.captureCount >= 1 else { throw reader.error("tag-pattern", "'\(pattern)' needs a capture group for the version") }
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
            guard let version = try pointer("version-pointer") else {
                throw reader.error("version-pointer", "missing: format json needs it (such as \"/info/version\")")
            }
            settings.pointers = PointerDocument.Settings(
                version: version, date: try pointer("date-pointer"), minimumVersion: try pointer("minimum-version-pointer"),
                url: try pointer("url-pointer")
            )
        }
        return settings
    }

    /// `public-keys`, `signature-url` and `max-signature-age-days`: nil
    /// when the app's documents need no signature.
    private static func signatureRequirement(_ reader: TableReader, url: String) throws(ConfigurationError) -> SignatureRequirement? {
        let texts = try reader.stringArray("public-keys")
        let signatureURL = try reader.string("signature-url")
        let maxAge = try reader.integer("max-signature-age-days", in: 1...Limits.days.upperBound)
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
        if let signatureURL, let problem = urlProblem(signatureURL) {
            throw reader.error("signature-url", "'\(URLText.masked(signatureURL))': \(problem)")
        }
        return SignatureRequirement(publicKeys: keys, url: signatureURL ?? SignatureRequirement.defaultURL(for: url), maxAgeDays: maxAge)
    }

    /// Why `url` cannot be fetched: not https, http or file, not a whole
    /// URL (no host, a port past 65535), or holding a space or a control
    /// character, which a URL carries percent-encoded; nil when it can.
    static func urlProblem(_ url: String) -> String? {
        if url.unicodeScalars.contains(where: { $0 == " " || DisplayText.isControl($0) }) {
            return "holds a space or a control character; write it percent-encoded (%20)"
        }
        let lowered = url.lowercased()
        if lowered.hasPrefix("file://") {
            return url.count > "file://".count && URL(string: url)?.path.isEmpty == false ? nil : "not a file URL with a path"
        }
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else { return "not an https, http or file URL" }
        return FetchTarget.problem(with: url)
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

extension ConfigurationLoader {
    /// `ssvcd --check-config`: loads the configuration as a start would
    /// (the main file, the apps directory, the same checks, the same
    /// child for the TOML), prints one line per app and every warning, and
    /// touches neither state nor socket. 0 when it would start, else 78
    /// with the error on standard error.
    public static func checkConfiguration(_ overrides: Overrides, environment: [String: String]) -> Int32 {
        let configuration: Configuration
        do {
            configuration = try load(overrides, environment: environment)
        } catch {
            StandardError.writeEscapedLine("ssvcd: \(error.description)")
            return DaemonMain.configurationErrorExit
        }
        let daemon = configuration.daemon
        // What the start would refuse, or the daemon would meet later: the
        // same checks, said now.
        if let problem = FileSystem.folderProblem(daemon.stateDirectory) {
            StandardError.writeEscapedLine("ssvcd: daemon.state-dir: cannot write \(daemon.stateDirectory)/state.json: \(problem)")
            return DaemonMain.configurationErrorExit
        }
        var warnings = configuration.warnings
        if let metrics = daemon.metricsFile, let problem = FileSystem.folderProblem(FileSystem.folder(of: metrics)) {
            warnings.append("daemon.metrics-file: \(metrics) cannot be written: \(problem)")
        }
        if let hooks = daemon.hooksDirectory {
            for (name, problem) in HookRunner.listing(hooks).refused {
                warnings.append(name == "*" ? "hooks in \(hooks) refused: \(problem)" : "hook \(hooks)/\(name) refused, it will not run: \(problem)")
            }
        }
        for warning in warnings { StandardError.writeEscapedLine("ssvcd: warning: \(warning)") }
        let apps = configuration.apps
        // Paths, versions and commands are the files' text: escaped, like the errors.
        let show = { (line: String) in print(DisplayText.escaped(line, limit: .max)) }
        show("\(overrides.mainFile ?? defaultMainFile), \(configuration.daemon.appsDirectory): \(apps.count) app\(apps.count == 1 ? "" : "s"), configuration OK")
        for app in apps {
            show("\(app.name): format \(app.format.rawValue), schedule \(app.schedule.rawValue), \(app.version.shown), url \(URLText.masked(app.url))")
        }
        return 0
    }
}
