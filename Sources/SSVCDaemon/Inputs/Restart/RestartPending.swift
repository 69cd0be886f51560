import FoundationEssentials
import Logging
import SSVCControl
import SSVCCore
import SSVCPosix
import SSVCSigning

/// Restart pending (SPEC §15): is the version installed the one running?
/// Compared as versions in the app's scheme, never by file times, so a
/// clock change is no restart.
enum RestartPending: AppInput {
    typealias Settings = RestartSettings
    typealias Stored = RestartData
    typealias Verdict = RestartPendingVerdict

    static let name = "restart"
    static let keys = RestartKeys.all
    static let enabling = "one of \(RestartKeys.package.name), \(RestartKeys.file.name), \(RestartKeys.command.name)"
    static var storage: WritableKeyPath<AppState, RestartData?> { \.restart }

    static let metricFamilies = [
        MetricFamily(name: "ssvc_app_restart_pending", help: "1 while the installed version differs from the running one."),
    ]

    /// The `installed-version-*` keys: nil when the app sets none (then
    /// `restart-pending-critical-days` may not be set either).
    static func settings(_ reader: TableReader, app: InputContext) throws(ConfigurationError) -> RestartSettings? {
        let sources: [(key: String, source: VersionSource)] = [
            try reader.read(RestartKeys.package).map { (RestartKeys.package.name, VersionSource.package($0, database: app.dpkgStatus)) },
            try reader.path(RestartKeys.file).map { (RestartKeys.file.name, VersionSource.file($0)) },
            try reader.read(RestartKeys.command).map { (RestartKeys.command.name, VersionSource.command($0)) },
        ].compactMap { $0 }
        guard let source = sources.first?.source else {
            if reader.table[RestartKeys.criticalDays.name] != nil { throw reader.error(RestartKeys.criticalDays.name, "needs \(enabling)") }
            return nil
        }
        // The error names a key that is set: the second one.
        guard sources.count == 1 else {
            throw reader.error(sources[1].key, "set only one of \(RestartKeys.package.name), \(RestartKeys.file.name), \(RestartKeys.command.name)")
        }
        if case let .package(name, _) = source, let problem = AppKeyRules.versionPackageProblem(name) {
            throw reader.error(RestartKeys.package, problem)
        }
        if case let .command(argv) = source, argv.isEmpty || argv[0].isEmpty {
            throw reader.error(RestartKeys.command, "needs at least the program")
        }
        return RestartSettings(source: source, criticalDays: try reader.value(RestartKeys.criticalDays))
    }

    static func source(_ settings: RestartSettings) -> String? { nil }

    /// Nothing it reads is signed: the installed version is the machine's own.
    static func signed(
        _ settings: RestartSettings, by signature: SignatureRequirement, app: InputContext, reader: TableReader
    ) throws(ConfigurationError) -> RestartSettings {
        settings
    }

    static func read(_ settings: RestartSettings, stored: RestartData?, running: String, attempt: InputAttempt) async -> RestartData {
        let previous = stored ?? RestartData()
        let scheme = attempt.app.versionScheme
        let written: String
        do {
            written = try await attempt.readVersion(settings.source)
        } catch {
            return previous.failed("installed version: \(error)", at: attempt.now)
        }
        if let problem = DisplayText.versionProblem(written) {
            return previous.failed("installed version: \(settings.source.shown): not a version string: \(problem)", at: attempt.now)
        }
        let installed: String
        do {
            installed = try scheme.normalized(written)
        } catch {
            return previous.failed("installed version \(DisplayText.escaped(written, limit: 80)): \(error.description)", at: attempt.now)
        }
        return previous.read(installed: installed, running: running, scheme: scheme, at: attempt.now)
    }

    static func failed(_ stored: RestartData?, error: String, at now: Date) -> RestartData {
        (stored ?? RestartData()).failed(error, at: now)
    }

    static func lastRead(_ data: RestartData) -> (succeeded: Bool, error: String?) {
        (data.lastAttempt == data.checked, data.lastError ?? "installed version not read")
    }

    static func retry(_ data: RestartData) -> (failures: Int, notBefore: Date?) {
        (data.consecutiveFailures, nil)
    }

    static func verdict(
        _ settings: RestartSettings, data: RestartData?, app: AppConfiguration, state: AppState, now: Date, restoring: Bool
    ) -> RestartPendingVerdict {
        let verdict = RestartVerdict(data: data, criticalDays: settings.criticalDays, now: now)
        // Said when it starts and when it ends; nothing while it never started.
        let said: RestartData.Reported? = if restoring {
            data?.reported
        } else if data?.checked != nil, verdict.pending != nil || data?.reported != nil {
            verdict.reported
        } else {
            nil
        }
        return RestartPendingVerdict(verdict, data: data, said: said)
    }

    static func remember(_ said: RestartData.Reported, in data: inout RestartData) {
        data.reported = said
    }
}

/// How an app's installed version is read (its `installed-version-*` keys).
package struct RestartSettings: Sendable, Equatable {
    package var source: VersionSource
    package var criticalDays: Int
}

/// Whether a restart is pending, as one report shows it.
struct RestartPendingVerdict: InputVerdict {
    let verdict: RestartVerdict
    let data: RestartData?
    let said: RestartData.Reported?
    let notes: [String]
    let failure: InputFailure?

    var input: String { RestartPending.name }
    var requirement: InputRequirement? { nil }
    var changesAt: [Date] { verdict.changesAt }

    init(_ verdict: RestartVerdict, data: RestartData?, said: RestartData.Reported?) {
        self.verdict = verdict
        self.data = data
        self.said = said
        // A pending restart is its own field (restartPending), not a note.
        var notes: [String] = []
        if let data, data.consecutiveFailures > 0, let error = data.lastError {
            failure = InputFailure(error: error.hasPrefix("installed version") ? error : "installed version: \(error)", count: data.consecutiveFailures)
            notes.append("installed version not read (\(data.consecutiveFailures) in a row)")
        } else {
            failure = nil
        }
        self.notes = notes
    }

    func show(in status: inout AppStatus) {
        status.restartPending = verdict.pending.map { pending in
            AppStatus.RestartPending(installed: pending.installed, running: pending.running, since: RFC3339.format(pending.since), overdue: verdict.critical)
        }
    }

    var journalFields: [String: String] {
        var fields = ["SSVC_RESTART_PENDING": verdict.pending == nil ? "0" : "1"]
        if let pending = verdict.pending { fields["SSVC_INSTALLED_VERSION"] = pending.installed }
        return fields
    }

    var hookVariables: [String: String] {
        ["SSVC_RESTART_PENDING": verdict.pending == nil ? "0" : "1", "SSVC_INSTALLED_VERSION": verdict.pending?.installed ?? ""]
    }

    var metrics: [MetricSample] {
        guard data?.checked != nil else { return [] }
        return [MetricSample(family: "ssvc_app_restart_pending", labels: [], value: verdict.pending == nil ? "0" : "1")]
    }

    func change(from before: RestartData.Reported?, in report: AppReport) -> InputChange {
        let name = report.app.name
        let message = if let pending = verdict.pending {
            "\(name): restart pending: \(DisplayText.escaped(pending.installed, limit: 80)) is installed, \(DisplayText.escaped(pending.running, limit: 80)) runs"
        } else if let installed = before?.installed {
            "\(name): no restart pending: \(DisplayText.escaped(data?.running ?? "?", limit: 80)) runs, \(DisplayText.escaped(installed, limit: 80)) was installed"
        } else {
            "\(name): no restart pending: \(DisplayText.escaped(data?.running ?? "?", limit: 80)) runs, as installed"
        }
        return InputChange(level: verdict.pending == nil ? .info : .warning, message: message, messageID: .restartPending, hook: .restartPending, event: .restart)
    }
}

extension HookRunner.Event.Kind {
    /// A restart became pending, or stopped being so.
    static let restartPending = Self(rawValue: "restart-pending")
}

extension AppReport {
    /// Whether a restart is pending, as the report shows it; nil when the app reads no installed version.
    var restart: RestartVerdict? {
        (verdicts.first { $0.input == RestartPending.name } as? RestartPendingVerdict)?.verdict
    }
}
