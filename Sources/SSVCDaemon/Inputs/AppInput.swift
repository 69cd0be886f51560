import FoundationEssentials
import Logging
import SSVCControl
import SSVCCore
import SSVCSigning

/// A per-app input beside the version document: something more the daemon
/// asks about an app at each check, and whose answer can change what every
/// output says of it (SPEC §13, §15). An input is one folder under
/// `Inputs/` and one entry in `AppInputs.all`; the coordinator, the
/// reporter, the state writer and the app's report iterate the inputs and
/// name none (docs/design.md, "Adding an input").
///
/// Everything is static: an input is a kind of question, its answers are
/// values (its settings per app, its data per app's state, its verdict per
/// report).
protocol AppInput {
    /// How an app configures it, read once from the app's keys; compared
    /// to tell whether a reload changed the app.
    associatedtype Settings: Sendable & Equatable
    /// What it keeps in the app's state between checks (in `state.json`).
    associatedtype Stored: Sendable & Equatable
    associatedtype Verdict: InputVerdict

    /// Its name: the key its settings, data and last words go by.
    static var name: String { get }
    /// Its keys in an app's table (ssvcd.toml(5) describes each).
    static var keys: [KeyEntry] { get }
    /// What turns it on, as an operator writes it (`key = "value"`):
    /// an app may leave `url` out only with one of these.
    static var enabling: String { get }
    /// Where its data lives in the app's state.
    static var storage: WritableKeyPath<AppState, Stored?> { get }
    /// The metrics families its verdicts' series belong to, in order.
    static var metricFamilies: [MetricFamily] { get }

    /// Its settings from the app's table; nil when the app does not use it
    /// (then none of its keys may be set). An app uses it only by setting
    /// one of its keys: the loader does not ask of an app that sets none.
    static func settings(_ reader: TableReader, app: InputContext) throws(ConfigurationError) -> Settings?
    /// Where it reads from: the default signature URL of an app without
    /// `url` is derived from it; nil when it reads nothing `public-keys` sign.
    static func source(_ settings: Settings) -> String?
    /// The settings once the app's `public-keys` are known, or an error
    /// naming the key that cannot go with them.
    static func signed(
        _ settings: Settings, by signature: SignatureRequirement, app: InputContext, reader: TableReader
    ) throws(ConfigurationError) -> Settings

    /// One read, off the service's actor, for the running version (as the
    /// app's scheme reads it); a failure keeps the last good data.
    static func read(_ settings: Settings, stored: Stored?, running: String, attempt: InputAttempt) async -> Stored
    /// The data after a check that could not read it (no running version).
    static func failed(_ stored: Stored?, error: String, at now: Date) -> Stored
    /// Whether the data's last read succeeded, else why not: for an app
    /// without `url`, its inputs' reads are the check's outcome.
    static func lastRead(_ data: Stored) -> (succeeded: Bool, error: String?)
    /// Failed reads in a row, and the source's Retry-After after the last:
    /// the app's next check is planned from them as from a failed check.
    static func retry(_ data: Stored) -> (failures: Int, notBefore: Date?)

    /// What the data says at `now`. `restoring`: the first report after a
    /// start, whose `said` is what the state remembers being said.
    static func verdict(_ settings: Settings, data: Stored?, app: AppConfiguration, state: AppState, now: Date, restoring: Bool) -> Verdict
    /// Keeps what was said in the data, so a restart does not say it again.
    static func remember(_ said: Verdict.Said, in data: inout Stored)
}

/// What an input's data says of an app at one instant, derived once per
/// report, and everything it adds to the outputs.
protocol InputVerdict: Sendable {
    /// What the journal said of it, compared between two reports to tell a
    /// change: a new entry, hook and event go out when it differs.
    associatedtype Said: Sendable & Equatable

    /// The input it comes from.
    var input: String { get }
    /// An update this input requires, and the version that satisfies it;
    /// nil when it requires none.
    var requirement: InputRequirement? { get }
    /// A newer version this input offers an app without a version server
    /// (it has no other source of one): the app is `update-available`.
    var offer: InputRequirement? { get }
    /// What it could not tell, for the app's note.
    var notes: [String] { get }
    /// Its last read failed; nil when it did not (or never ran).
    var failure: InputFailure? { get }
    /// Instants after which it may say otherwise with no new data (an age
    /// limit, an ignore entry's end).
    var changesAt: [Date] { get }
    /// What is said of it now; nil while there is nothing to say.
    var said: Said? { get }
    /// Its fields of `GetStatus`'s and Watch's `App`.
    func show(in status: inout AppStatus)
    /// Its `SSVC_` fields on every journal entry about the app.
    var journalFields: [String: String] { get }
    /// Its `SSVC_` variables for every hook.
    var hookVariables: [String: String] { get }
    /// Its metrics series, of the families its input declares.
    var metrics: [MetricSample] { get }
    /// What goes out when `said` differs from `before`: a journal entry, a
    /// hook event and a Watch event.
    func change(from before: Said?, in report: AppReport) -> InputChange
}

extension InputVerdict {
    var failure: InputFailure? { nil }
    var offer: InputRequirement? { nil }

    /// `said`, typed away, for `AppReport.Told`.
    var saidValue: (any Sendable)? { said }

    /// Whether `said` differs from `before`, which was told earlier of the
    /// same input; nothing said now is no change.
    func differs(from before: (any Sendable)?) -> Bool {
        guard let said else { return false }
        return (before as? Said) != said
    }

    /// `change(from:in:)` for a `before` typed away.
    func change(fromValue before: (any Sendable)?, in report: AppReport) -> InputChange {
        change(from: before as? Said, in: report)
    }
}

/// An update an input requires: `note` says why; `version`, when known,
/// is the one that satisfies it (shown as the latest for an app without
/// a version server).
struct InputRequirement: Sendable, Equatable {
    var version: String?
    var note: String
}

/// An input whose last read failed: a failed check of the app like any
/// other (issue 51): its error and count join the app's in every output.
struct InputFailure: Sendable, Equatable {
    /// "advisories: …": what failed, with the input named.
    var error: String
    /// Failed reads in a row.
    var count: Int
}

/// What an input's change sends out.
struct InputChange {
    var level: Logger.Level
    var message: String
    var messageID: MessageID
    var hook: HookRunner.Event.Kind
    var event: ControlEvent.Kind
}

/// What an input's settings may depend on besides its own keys.
struct InputContext {
    var appID: String
    /// `version-package`: the app is a Debian package.
    var packaged: Bool
    /// The app's version server, if any.
    var url: String?
    /// dpkg's status file, for a package's version.
    var dpkgStatus: String
}

/// What an input's read may use: the app, the daemon's settings (network,
/// time limits, state directory), the HTTP client and the time.
struct InputAttempt: Sendable {
    var app: AppConfiguration
    var daemon: DaemonSettings
    var fetcher: any HTTPTransport
    var now: Date
    /// The running version as read, before the app's scheme normalised it.
    var written: String?
    /// Reads a version from a source as the running version is read
    /// (`CheckService.Runtime.readVersion`, the check's commands group).
    var readVersion: @Sendable (VersionSource) async throws -> String
    var logger: Logger
}

/// One metrics series an input adds for an app (the `app` label first).
struct MetricSample: Sendable, Equatable {
    var family: String
    var labels: [Label]
    var value: String

    struct Label: Sendable, Equatable {
        var name: String
        var value: String
    }
}

/// A metrics family an input declares: its `# HELP` text. All are gauges.
struct MetricFamily: Sendable {
    var name: String
    var help: String
}

/// An app's settings of every input it uses, by input.
package struct InputSettings: Sendable, Equatable {
    private var values: [String: any Sendable] = [:]

    package init() {}

    /// Most apps use no input: their settings are not hashed for (a
    /// lookup per input per report, and per load; issue 55).
    subscript<Input: AppInput>(_ input: Input.Type) -> Input.Settings? {
        get { values.isEmpty ? nil : values[Input.name] as? Input.Settings }
        set {
            if let newValue { values[Input.name] = newValue } else if !values.isEmpty { values[Input.name] = nil }
        }
    }

    /// The names of the inputs the app uses, in `AppInputs.all`'s order.
    package var names: [String] { AppInputs.all.map { $0.name }.filter { values[$0] != nil } }

    package var isEmpty: Bool { values.isEmpty }

    package static func == (a: InputSettings, b: InputSettings) -> Bool {
        AppInputs.all.allSatisfy { $0.sameSettings(a, b) }
    }
}
