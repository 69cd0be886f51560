import ArgumentParser
import FoundationEssentials
import SSVCCore
import SSVCPosix
import SSVCSigning

/// Decides on a response document as the daemon would, without a daemon:
/// operators run it on a document before they publish it.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide on a response document offline, as ssvcd would.",
        discussion: """
            Prints the decision and exits 0 (up to date, ahead or unknown), 10 (update \
            available), 11 (update required) or 1 (the response or its signature is rejected). \
            With --public-key, the document's minisign signature (--signature) is checked \
            first, as ssvcd checks it for an app with public-keys. A newer version with a \
            rollout window is decided for the machine at --rollout-position at --now.

            With --advisories instead of --response, says which OSV records affect \
            --version of --package in --ecosystem, and why (the range and event that \
            decided), as ssvcd evaluates them: exit 0 clear, 11 affected with a fix, \
            13 affected without one, 1 error.

            With --lifecycle instead, says where the release line of --version stands in an \
            endoflife.date answer at --now, by its dates as ssvcd decides: exit 0 supported, \
            security-only, ending or unknown (no release matches), 14 end of life, 1 error.

            With --offer-windows instead, says when an offer due at --at is made on the \
            machine at --position and in which window, as ssvcd decides: exit 0, 64 for a \
            bad file (the key named).
            """
    )

    @Option(help: "Server format: \(ResponseFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ResponseFormat = .ssvc

    @Option(help: ArgumentHelp("The response document; - reads standard input.", valueName: "file"))
    var response: String?

    @Option(help: ArgumentHelp(
        "OSV advisories to evaluate instead of a response: an export .zip, a folder of records, one record or an API answer (a path or file:// URL).",
        valueName: "file"))
    var advisories: String?

    @Option(help: ArgumentHelp(
        "An endoflife.date API v1 answer (a product's or a release's) to evaluate instead of a response (a path, file:// URL or -).",
        valueName: "file"))
    var lifecycle: String?

    @Option(help: ArgumentHelp(
        "A TOML file holding offer-windows and windows-time-zone: when an offer is made instead (a path or -).", valueName: "file"))
    var offerWindows: String?

    @Option(help: ArgumentHelp("--offer-windows: the time the offer is due from, T + p × W (RFC 3339).", valueName: "time"))
    var at: String?

    // Taken whatever it starts with, as --rollout-position.
    @Option(parsing: .unconditional, help: ArgumentHelp("--offer-windows: this machine's rollout position, 0 to 1 (default 0).", valueName: "p"))
    var position: Double?

    @Option(help: ArgumentHelp("--lifecycle: " + Evaluate.help(LifecycleKeys.release), valueName: "name"))
    var release: String?

    @Option(help: ArgumentHelp("--lifecycle: " + Evaluate.help(LifecycleKeys.warnDays), valueName: "days"))
    var lifecycleWarnDays: Int?

    @Option(help: ArgumentHelp("--advisories: the OSV ecosystem (PyPI, npm, Go, crates.io, Debian:12, ...).", valueName: "name"))
    var ecosystem: String?

    @Option(help: ArgumentHelp("--advisories: the package name in that ecosystem.", valueName: "name"))
    var package: String?

    @Option(name: .customLong("version"), help: ArgumentHelp("The running version key; \"\" for none known.", valueName: "key"))
    var versionKey: String?

    @Option(help: ArgumentHelp(
        "Read the running version from dpkg's database: the installed version of this Debian package (instead of --version).",
        valueName: "name"))
    var versionPackage: String?

    @Option(help: ArgumentHelp("The running version number (default: packed from the key where it fits).", valueName: "n"))
    var versionNumber: Int?

    @Option(help: ArgumentHelp(
        "Version scheme: \(VersionScheme.allCases.map(\.rawValue).joined(separator: ", ")) (default: nsnumeric for itunes, else dotted).",
        valueName: "scheme"))
    var versionScheme: VersionScheme?

    @Option(help: ArgumentHelp("The app's identifier at the server (needed for turkcell).", valueName: "id"))
    var appId: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.minReleaseAgeDays), valueName: "days"))
    var minReleaseAgeDays: Int?

    @Flag(help: ArgumentHelp(Evaluate.help(AppKeys.includePrereleases)))
    var includePrereleases = false

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.tagPrefix), valueName: "prefix"))
    var tagPrefix: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.tagPattern), valueName: "regex"))
    var tagPattern: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.versionPointer), valueName: "pointer"))
    var versionPointer: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.datePointer), valueName: "pointer"))
    var datePointer: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.minimumVersionPointer), valueName: "pointer"))
    var minimumVersionPointer: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.urlPointer), valueName: "pointer"))
    var urlPointer: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.rolloutPercentagePointer), valueName: "pointer"))
    var rolloutPercentagePointer: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.maxVersion), valueName: "key"))
    var maxVersion: String?

    @Option(help: ArgumentHelp("Never offer this version, as the app key ignore-versions (repeatable).", valueName: "key"))
    var ignoreVersion: [String] = []

    @Option(help: ArgumentHelp("Language code (default: from LC_ALL, LC_MESSAGES, LANG; else en).", valueName: "ll"))
    var language: String?

    @Option(help: ArgumentHelp("Country code (default: from the locale; else none).", valueName: "CC"))
    var country: String?

    @Option(help: ArgumentHelp("An extra client property for filters (repeatable).", valueName: "key=value"))
    var property: [String] = []

    @Option(help: ArgumentHelp("The configured server URL: shows the request a check would send.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("Decide as at this time (RFC 3339).", valueName: "time"))
    var now: String?

    @Option(help: ArgumentHelp(
        "Phase a newer version over this many seconds, as the app key phased-rollout-seconds (default: the document's window).",
        valueName: "seconds"))
    var phasedRolloutSeconds: Int?

    // Taken whatever it starts with: `-0` is a position, not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "This machine's place in a phased rollout, 0 to 1, as rollout-position (default 0: the first machines).", valueName: "p"))
    var rolloutPosition: Double?

    @Option(help: ArgumentHelp(DaemonKeys.maxResponseBytes.summary + " From 1 to \(DaemonKeys.maxResponseBytes.range.upperBound).", valueName: "bytes"))
    var maxResponseBytes = DaemonKeys.defaultMaxResponseBytes

    @Option(help: ArgumentHelp(
        "A minisign public key: the base64 line of minisign.pub (repeatable, as public-keys).", valueName: "key"))
    var publicKey: [String] = []

    @Option(help: ArgumentHelp("A minisign.pub file (repeatable).", valueName: "file"))
    var publicKeyFile: [String] = []

    @Option(help: ArgumentHelp("The document's .minisig file, checked with the public keys.", valueName: "file"))
    var signature: String?

    @Option(help: ArgumentHelp(Evaluate.help(AppKeys.maxSignatureAgeDays), valueName: "days"))
    var maxSignatureAgeDays: Int?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    private var scheme: VersionScheme { versionScheme ?? (versionPackage != nil ? .debian : format.defaultVersionScheme) }

    func validate() throws {
        if offerWindows != nil {
            try validateOfferWindows()
            return
        }
        if at != nil || position != nil { throw ValidationError("--at and --position go with --offer-windows") }
        if lifecycle != nil {
            try validateLifecycle()
            return
        }
        if release != nil || lifecycleWarnDays != nil { throw ValidationError("--release and --lifecycle-warn-days go with --lifecycle") }
        if advisories != nil {
            try validateAdvisories()
            return
        }
        guard response != nil else { throw ValidationError("--response or --advisories is needed: what to evaluate") }
        switch (versionKey, versionPackage) {
        case (nil, nil): throw ValidationError("--version or --version-package is needed: the running version")
        case (_?, _?): throw ValidationError("give only one of --version and --version-package")
        case let (key?, nil):
            // Empty: no running version known, as in SSVC's own test cases.
            guard !key.isEmpty else { break }
            do {
                try scheme.validate(key)
            } catch {
                throw ValidationError("--version: \(error)")
            }
        case let (nil, name?):
            try refuse(AppKeys.versionPackage.name, AppKeyRules.versionPackageProblem(name))
        }
        // Options named after app keys keep the app keys' rules: the
        // loader's message follows the name.
        let given = [
            AppKeys.includePrereleases.name: includePrereleases, AppKeys.tagPrefix.name: tagPrefix != nil,
            AppKeys.tagPattern.name: tagPattern != nil, AppKeys.versionPointer.name: versionPointer != nil,
            AppKeys.datePointer.name: datePointer != nil, AppKeys.minimumVersionPointer.name: minimumVersionPointer != nil,
            AppKeys.urlPointer.name: urlPointer != nil, AppKeys.rolloutPercentagePointer.name: rolloutPercentagePointer != nil,
            AppKeys.minReleaseAgeDays.name: minReleaseAgeDays != nil,
        ]
        for (key, _) in AppKeyRules.formatKeys where given[key] == true {
            try refuse(key, AppKeyRules.formatProblem(key: key, format: format))
        }
        if let tagPattern { try refuse(AppKeys.tagPattern.name, AppKeyRules.tagPatternProblem(tagPattern)) }
        let pointers = [(AppKeys.versionPointer, versionPointer), (AppKeys.datePointer, datePointer),
                        (AppKeys.minimumVersionPointer, minimumVersionPointer), (AppKeys.urlPointer, urlPointer),
                        (AppKeys.rolloutPercentagePointer, rolloutPercentagePointer)]
        for case let (key, text?) in pointers {
            do { _ = try JSONPointer(parsing: text) } catch { try refuse(key.name, error.description) }
        }
        try refuse(AppKeys.versionPointer.name, AppKeyRules.versionPointerProblem(given: versionPointer != nil, format: format))
        try refuse(AppKeys.appID.name, AppKeyRules.appIDProblem(appId, format: format))
        if let maxVersion { try refuse(AppKeys.maxVersion.name, AppKeyRules.versionLimitProblem(maxVersion, scheme: scheme)) }
        for version in ignoreVersion { try refuse("ignore-version", AppKeyRules.versionLimitProblem(version, scheme: scheme)) }
        if let url { try refuse(AppKeys.url.name, AppKeyRules.urlProblem(url)) }
        try check(AppKeys.versionNumber, versionNumber.map(ConfigValue.int))
        try check(AppKeys.minReleaseAgeDays, minReleaseAgeDays.map(ConfigValue.int))
        try check(AppKeys.phasedRolloutSeconds, phasedRolloutSeconds.map(ConfigValue.int))
        try check(DaemonKeys.maxResponseBytes, .int(maxResponseBytes))
        try check(DaemonKeys.rolloutPosition, rolloutPosition.map(ConfigValue.double))
        for item in property where Self.keyAndValue(item) == nil {
            throw ValidationError("--property '\(item)': expected KEY=VALUE (the value may be empty)")
        }
        if let now, RFC3339.parse(now) == nil {
            throw ValidationError("--now '\(now)': expected an RFC 3339 time such as 2026-01-02T03:04:05Z")
        }
        let keys = !publicKey.isEmpty || !publicKeyFile.isEmpty
        if keys != (signature != nil) {
            throw ValidationError(keys
                ? "--signature is needed with --public-key: the .minisig file of the response"
                : "--signature needs --public-key or --public-key-file: the keys to check it with")
        }
        if let maxSignatureAgeDays {
            guard keys else { throw ValidationError("--max-signature-age-days needs --public-key and --signature") }
            try check(AppKeys.maxSignatureAgeDays, .int(maxSignatureAgeDays))
        }
    }

    /// A usage error naming the option of app key `key`, when there is a
    /// problem: `--key: problem`, the words the loader puts after `key`.
    func refuse(_ key: String, _ problem: String?) throws {
        if let problem { throw ValidationError("--\(key): \(problem)") }
    }

    /// The option named after `key` held to that key's own rule, as the
    /// loader holds the key (its range, its type).
    func check<Value>(_ key: ConfigurationKey<Value>, _ value: ConfigValue?) throws {
        guard let value else { return }
        do { _ = try key.decode(value) } catch { try refuse(key.name, error.description) }
    }

    /// An option's help from the key it is named after: its line, its
    /// range and its default.
    static func help<Value>(_ key: ConfigurationKey<Value>) -> String {
        var text = key.summary
        switch key.form {
        case let .integer(range): text += " From \(range.lowerBound) to \(range.upperBound)."
        default: break
        }
        if let shown = key.entry.defaultText { text += " Default: \(shown.isEmpty ? "none" : shown)." }
        return text
    }

    func run() throws {
        if let offerWindows {
            try runOfferWindows(offerWindows)
            return
        }
        if let lifecycle {
            try runLifecycle(lifecycle)
            return
        }
        if let advisories {
            try runAdvisories(advisories)
            return
        }
        let response = self.response ?? "-"
        let context = makeContext(running: try runningKey())
        let body: [UInt8]
        do {
            body = try BoundedReader.read(path: response, limit: maxResponseBytes, specialFiles: true)
        } catch {
            StandardError.writeLine("ssvcctl: \(response): \(error)")
            throw ExitStatus.failure
        }
        let accepted = try checkSignature(of: body, now: context.now)
        let evaluation: Evaluation
        do {
            evaluation = try format.evaluate(body, context: context)
        } catch {
            StandardError.writeLine("ssvcctl: \(response): \(error)")
            throw ExitStatus.failure
        }
        // A machine that sees the document for the first time at --now.
        let rollout = PhasedRollout.Settings(
            app: appId ?? "", window: phasedRolloutSeconds.map { TimeInterval($0) }, pinnedPosition: rolloutPosition ?? 0, machine: ""
        )
        let limits = KeepBackRules(maxVersion: maxVersion, ignoreVersions: ignoreVersion, scheme: scheme, packedNumbers: versionNumber == nil)
        let settled = PhasedRollout.settle(
            evaluation.decision, settings: rollout, limits: limits, firstSeen: context.now, offered: nil, now: context.now
        )
        let report = EvaluationReport(
            evaluation: evaluation, settled: settled, rollout: rollout, limits: limits, now: context.now, format: format, running: context.running,
            request: url.map { format.requestURL(base: $0, context: context) }, signature: accepted
        )
        print(json ? report.json() : report.text())
        throw ExitStatus.code(for: [settled.decision.status])
    }

    /// The signature accepted as the daemon would accept it; nil when none
    /// was asked for. Exits 1 naming the reason when it is not.
    private func checkSignature(of document: [UInt8], now: Date) throws -> AcceptedSignature? {
        guard let signature else { return nil }
        var keys: [Minisign.PublicKey] = []
        for text in publicKey {
            do { keys.append(try Minisign.PublicKey(parsing: text)) } catch {
                StandardError.writeLine("ssvcctl: --public-key: \(error)")
                throw ExitStatus.usage
            }
        }
        for file in publicKeyFile {
            do {
                let text = String(decoding: try BoundedReader.read(path: file, limit: 4096, specialFiles: true), as: UTF8.self)
                keys.append(try Minisign.PublicKey(parsing: text))
            } catch {
                StandardError.writeLine("ssvcctl: --public-key-file \(file): \(error)")
                throw ExitStatus.usage
            }
        }
        let requirement = SignatureRequirement(publicKeys: keys, url: signature, maxAgeDays: maxSignatureAgeDays)
        do {
            let bytes = try BoundedReader.read(path: signature, limit: Minisign.maximumSignatureBytes, specialFiles: true)
            return try requirement.accept(document, signature: bytes, etag: nil, now: now, newestAccepted: nil)
        } catch let error as SignatureProblem {
            StandardError.writeLine("ssvcctl: signature \(signature): rejected: \(error)")
        } catch {
            StandardError.writeLine("ssvcctl: signature: \(error)")
        }
        throw ExitStatus.failure
    }

    /// --version, or the version dpkg's database holds for --version-package.
    private func runningKey() throws -> String {
        guard let versionPackage else { return versionKey ?? "" }
        let database = DpkgDatabase.statusPath(environment: ProcessEnvironment.variables())
        do {
            let key = try DpkgDatabase.shared.installedVersion(of: versionPackage, path: database)
            try scheme.validate(key)
            return key
        } catch {
            StandardError.writeLine("ssvcctl: --version-package: \(error)")
            throw ExitStatus.failure
        }
    }

    /// `github`'s and `json`'s settings from the options; validated already.
    private var formatSettings: FormatSettings {
        let pointer = { (text: String?) in text.flatMap { try? JSONPointer(parsing: $0) } }
        return FormatSettings(
            github: GitHubReleases.Settings(includePrereleases: includePrereleases, tagPrefix: tagPrefix ?? GitHubReleases.Settings.defaultTagPrefix, tagPattern: tagPattern),
            pointers: pointer(versionPointer).map {
                PointerDocument.Settings(
                    version: $0, date: pointer(datePointer), minimumVersion: pointer(minimumVersionPointer), url: pointer(urlPointer),
                    rolloutPercentage: pointer(rolloutPercentagePointer)
                )
            }
        )
    }

    private func makeContext(running key: String) -> EvaluationContext {
        var locale = LocaleSettings.fromEnvironment(ProcessEnvironment.variables())
        if let language { locale.language = language }
        if let country { locale.country = country }
        var properties: [String: String] = [:]
        for case let (key, value)? in property.map(Self.keyAndValue) {
            properties[key] = value
        }
        return EvaluationContext(
            running: RunningVersion(key: key, configuredNumber: versionNumber.map(UInt64.init), scheme: scheme),
            appID: appId ?? "",
            locale: locale,
            machine: MachineFactsReader.gather(),
            properties: properties,
            now: now.flatMap(RFC3339.parse) ?? Date(),
            minimumReleaseAgeDays: minReleaseAgeDays.map(UInt.init), formatSettings: formatSettings
        )
    }

    /// `KEY=VALUE` split at the first `=`; nil without one or without a key.
    /// An empty value is a value: Turkcell's `''` and `!''` rules test it.
    static func keyAndValue(_ item: String) -> (key: String, value: String)? {
        guard let equals = item.firstIndex(of: "="), equals != item.startIndex else { return nil }
        return (String(item[..<equals]), String(item[item.index(after: equals)...]))
    }
}
