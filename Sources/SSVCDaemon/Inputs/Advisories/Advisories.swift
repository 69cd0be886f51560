import FoundationEssentials
import SSVCCore
import SSVCPosix
import SSVCSigning

/// Advisories (SPEC §13): does a published advisory (OSV) affect the
/// running version, and does the version server offer its fix? A fix
/// offered makes the update required, through a hold, a phase or a cap.
enum Advisories: AppInput {
    typealias Settings = AdvisorySettings
    typealias Stored = AdvisoryData
    typealias Verdict = AdvisoriesVerdict

    static let name = "advisories"
    static let keys = AdvisoryKeys.all
    static let enabling = "\(AdvisoryKeys.advisories.name) = \"osv\""
    static var storage: WritableKeyPath<AppState, AdvisoryData?> { \.advisories }

    /// The most `ssvc_app_advisory_info` series of one app: the count is exact, the series bounded.
    static let maximumInfoSeries = 16

    static let metricFamilies = [
        MetricFamily(name: "ssvc_advisory_state", help: "1 for the app's advisory state (clear, affected, unknown), 0 for each other."),
        MetricFamily(name: "ssvc_app_advisories", help: "Advisories affecting the running version, ignored ones aside; absent while unknown with no findings kept."),
        MetricFamily(
            name: "ssvc_app_advisory_info", help: "An advisory affecting the running version (1), at most \(maximumInfoSeries) per app."
        ),
    ]

    // MARK: Settings

    /// The `advisories*` keys and `ignore-advisories`: nil when the app
    /// does not ask about advisories (then none of the others may be set).
    static func settings(_ reader: TableReader, app: InputContext) throws(ConfigurationError) -> AdvisorySettings? {
        guard let kind = try reader.read(AdvisoryKeys.advisories) else {
            for key in keys where reader.table[key.name] != nil {
                throw reader.error(key.name, "needs \(enabling)")
            }
            return nil
        }
        guard kind == "osv" else {
            throw reader.error(AdvisoryKeys.advisories, "'\(DisplayText.cut(kind, bytes: 40))' is not known: the one source is \"osv\"")
        }
        let source = try reader.value(AdvisoryKeys.url)
        if let problem = AppKeyRules.advisoriesURLProblem(source) { throw reader.error(AdvisoryKeys.url, problem) }
        let ecosystem: String
        if let given = try reader.read(AdvisoryKeys.ecosystem) {
            if let problem = AppKeyRules.advisoryNameProblem(given) { throw reader.error(AdvisoryKeys.ecosystem, problem) }
            // No record would ever match a name spelt in another case: a silent clear.
            if case let .miscased(right) = OSVEcosystems.spelling(of: given) {
                throw reader.error(AdvisoryKeys.ecosystem, "'\(DisplayText.cut(given, bytes: 60))' is spelt \"\(right)\" in OSV records")
            }
            ecosystem = given
        } else if app.packaged {
            let release = MachineFactsReader.gather().osVersion
            guard !release.isEmpty else {
                throw reader.error(AdvisoryKeys.ecosystem, "missing, and /etc/os-release has no VERSION_ID to make Debian:VERSION_ID of (testing or unstable): set it, e.g. \"Debian:sid\"")
            }
            ecosystem = "Debian:" + release
        } else {
            throw reader.error(AdvisoryKeys.ecosystem, "missing: name the ecosystem (PyPI, npm, Go, crates.io, Debian:12, …); only version-package has a default")
        }
        var package: String?
        if let given = try reader.read(AdvisoryKeys.package) {
            if let problem = AppKeyRules.advisoryNameProblem(given) { throw reader.error(AdvisoryKeys.package, problem) }
            package = given
        } else if !app.packaged {
            package = app.appID
        }
        var ignores: [AdvisoryIgnore] = []
        if let entries = try reader.read(AdvisoryKeys.ignore) {
            guard case let .array(values) = entries else { throw reader.error(AdvisoryKeys.ignore, "expected an array of ids or tables") }
            for (index, value) in values.enumerated() {
                ignores.append(try ignore(value, reader: reader, key: "\(AdvisoryKeys.ignore.name)[\(index)]"))
            }
        }
        return AdvisorySettings(
            source: source, ecosystem: ecosystem, package: package, ignores: ignores,
            maxAgeDays: try reader.value(AdvisoryKeys.maxAgeDays),
            maxBytes: try reader.value(AdvisoryKeys.maxBytes)
        )
    }

    /// One `ignore-advisories` entry: an id, or `{ id, until, reason }`.
    private static func ignore(_ value: ConfigValue, reader: TableReader, key: String) throws(ConfigurationError) -> AdvisoryIgnore {
        func checked(_ id: String) throws(ConfigurationError) -> String {
            if let problem = AppKeyRules.advisoryNameProblem(id) { throw reader.error(key, problem) }
            return id
        }
        switch value {
        case let .string(id):
            return AdvisoryIgnore(id: try checked(id))
        case let .table(table):
            let entry = TableReader(table, file: reader.file, key: reader.key.map { "\($0).\(key)" } ?? key)
            try entry.rejectUnknown(["id", "until", "reason"])
            guard let id = try entry.string("id") else { throw entry.error("id", "missing") }
            var lapsesAt: Date?
            if let until = table["until"] {
                guard case let .other("date-local", text) = until, let day = CivilTime.parseDayOrMinute(text) else {
                    throw entry.error("until", "expected a date such as 2027-01-31, found \(until.type)")
                }
                lapsesAt = day.addingTimeInterval(86_400)
            }
            return AdvisoryIgnore(id: try checked(id), lapsesAt: lapsesAt, reason: try entry.string("reason").map { DisplayText.cut($0) })
        default:
            throw reader.error(key, "expected an id or a table { id, until, reason }, found \(value.type)")
        }
    }

    static func source(_ settings: AdvisorySettings) -> String? { settings.source }

    /// `public-keys` sign an export mirror as they sign a document: its
    /// signature beside it, or at `signature-url` for an app without url.
    static func signed(
        _ settings: AdvisorySettings, by signature: SignatureRequirement, app: InputContext, reader: TableReader
    ) throws(ConfigurationError) -> AdvisorySettings {
        var settings = settings
        switch settings.sourceKind {
        case .zip:
            settings.signature = app.url == nil && reader.table[AppKeys.signatureURL.name] != nil
                ? signature
                : SignatureRequirement(publicKeys: signature.publicKeys, url: SignatureRequirement.defaultURL(for: settings.source), maxAgeDays: signature.maxAgeDays)
        case .folder:
            throw reader.error(AdvisoryKeys.url, "a folder of records cannot be signed: with public-keys, use a signed export zip")
        case .api:
            break
        }
        return settings
    }

    // MARK: Reading

    /// The app's network settings for its advisories' source: the app's
    /// headers are its server's (its format's Accept too).
    static func options(_ app: AppConfiguration, settings: AdvisorySettings, daemon: DaemonSettings) -> FetchOptions {
        var options = app.fetchOptions(daemon).sending(to: settings.source, tokenFor: app.url ?? settings.source)
        options.headers = []
        return options
    }

    /// What makes two apps' mirrors one (`MirrorShares`).
    static func mirrorKey(_ app: AppConfiguration, settings: AdvisorySettings, daemon: DaemonSettings) -> MirrorShares.Key {
        MirrorShares.Key(settings, options: options(app, settings: settings, daemon: daemon))
    }

    static func read(_ settings: AdvisorySettings, stored: AdvisoryData?, running: String, attempt: InputAttempt) async -> AdvisoryData {
        let app = attempt.app
        let options = options(app, settings: settings, daemon: attempt.daemon)
        let check = AdvisoryCheck(app: app, settings: settings, daemon: attempt.daemon, stored: stored, logger: attempt.logger)
        return await check.run(running: running, written: attempt.written, fetcher: attempt.fetcher, options: options, now: attempt.now)
    }

    static func failed(_ stored: AdvisoryData?, error: String, at now: Date) -> AdvisoryData {
        (stored ?? AdvisoryData()).failed(error, at: now)
    }

    static func lastRead(_ data: AdvisoryData) -> (succeeded: Bool, error: String?) {
        (data.lastAttempt == data.checked, data.lastError ?? "advisories not read")
    }

    static func retry(_ data: AdvisoryData) -> (failures: Int, notBefore: Date?) {
        (data.consecutiveFailures, data.retryNotBefore)
    }

    // MARK: Verdict

    static func verdict(
        _ settings: AdvisorySettings, data: AdvisoryData?, app: AppConfiguration, state: AppState, now: Date, restoring: Bool
    ) -> AdvisoriesVerdict {
        let verdict = AdvisoryVerdict(
            data: data, settings: settings, latest: state.documentLatest, hasServer: app.url != nil, scheme: app.versionScheme, now: now
        )
        // A report derived from the state says what its verdict says; the
        // first after a start says what the state file remembers being said.
        let said = restoring ? data?.reported : (data == nil ? nil : verdict.reported)
        return AdvisoriesVerdict(verdict, settings: settings, data: data, said: said, currentVersion: state.currentVersion)
    }

    static func remember(_ said: AdvisoryData.Reported, in data: inout AdvisoryData) {
        data.reported = said
    }
}

extension AppConfiguration {
    /// `advisories = "osv"` and its keys; nil: no advisories asked about.
    package var advisories: AdvisorySettings? {
        get { inputs[Advisories.self] }
        set { inputs[Advisories.self] = newValue }
    }
}
