import FoundationEssentials
import SSVCCore
import SSVCSigning

/// Every per-app input, in the order their outputs appear. Adding an input
/// is adding it here (docs/design.md, "Adding an input").
enum AppInputs {
    static var all: [any AppInput.Type] { [Advisories.self, EndOfLife.self, RestartPending.self] }

    /// Every input's app keys.
    static var keys: [KeyEntry] { all.flatMap { $0.keys } }

    /// What lets an app leave `url` out, for its error.
    static var enabling: String { all.map { $0.enabling }.joined(separator: " or ") }

    /// The app's history for planning its next check: a failed input read
    /// (its count, its source's Retry-After) counts as a failed check does.
    static func history(of state: AppState) -> CheckHistory {
        var history = state.history
        for input in all {
            guard let retry = input.retry(in: state), retry.failures > 0 else { continue }
            history.consecutiveFailures = max(history.consecutiveFailures, retry.failures)
            if let notBefore = retry.notBefore { history.retryNotBefore = max(history.retryNotBefore ?? notBefore, notBefore) }
        }
        return history
    }

    /// Each input's data in `state`, by input: what a check starts from.
    static func stored(in state: AppState) -> [String: any Sendable] {
        var stored: [String: any Sendable] = [:]
        for input in all { if let value = input.storedValue(state) { stored[input.name] = value } }
        return stored
    }
}

/// One input's read in a check: its new data, typed away, and whether it succeeded.
struct InputRead: Sendable {
    var input: String
    var data: any Sendable
    var succeeded: Bool
    var error: String?
    /// The source's Retry-After after a failed read.
    var retryAfter: Date?
}

// The operations the coordinator, the loader and the report run on every
// input, each written once here for any input.
extension AppInput {
    static func sameSettings(_ a: InputSettings, _ b: InputSettings) -> Bool {
        a[Self.self] == b[Self.self]
    }

    /// Reads the input's settings of an app into `inputs`.
    static func load(_ reader: TableReader, app: InputContext, into inputs: inout InputSettings) throws(ConfigurationError) {
        inputs[Self.self] = try settings(reader, app: app)
    }

    /// Where the input reads from, when the app uses it.
    static func source(in inputs: InputSettings) -> String? {
        inputs[Self.self].flatMap { source($0) }
    }

    /// Puts the app's `public-keys` to the input's settings.
    static func sign(
        _ inputs: inout InputSettings, by signature: SignatureRequirement, app: InputContext, reader: TableReader
    ) throws(ConfigurationError) {
        guard let settings = inputs[Self.self] else { return }
        inputs[Self.self] = try signed(settings, by: signature, app: app, reader: reader)
    }

    /// `retry` of the input's data in `state`; nil when it has none.
    static func retry(in state: AppState) -> (failures: Int, notBefore: Date?)? {
        state[keyPath: storage].map { retry($0) }
    }

    /// The input's data in `state`, typed away for a check.
    static func storedValue(_ state: AppState) -> (any Sendable)? {
        state[keyPath: storage]
    }

    /// One check's read of the input: nil when the app does not use it.
    /// Without a running version (`failure` says why) nothing is read and
    /// the last good data is kept.
    static func attempt(_ attempt: InputAttempt, stored: (any Sendable)?, running: String?, failure: String?) async -> InputRead? {
        guard let settings = attempt.app.inputs[Self.self] else { return nil }
        let before = stored as? Stored
        let data: Stored
        if let running {
            data = await read(settings, stored: before, running: running, attempt: attempt)
        } else {
            data = failed(before, error: failure ?? "the running version is not known", at: attempt.now)
        }
        let (succeeded, error) = lastRead(data)
        return InputRead(input: name, data: data, succeeded: succeeded, error: error, retryAfter: succeeded ? nil : retry(data).notBefore)
    }

    /// The app's state after a check: the data read; none when the app no
    /// longer uses the input.
    static func apply(_ reads: [String: any Sendable], app: AppConfiguration, to state: inout AppState) {
        guard app.inputs[Self.self] != nil else {
            state[keyPath: storage] = nil
            return
        }
        if let data = reads[name] as? Stored { state[keyPath: storage] = data }
    }

    /// The input's verdict for a report; nil when the app does not use it.
    static func verdict(app: AppConfiguration, state: AppState, now: Date, restoring: Bool) -> (any InputVerdict)? {
        guard let settings = app.inputs[Self.self] else { return nil }
        return verdict(settings, data: state[keyPath: storage], app: app, state: state, now: now, restoring: restoring)
    }

    /// Keeps in `state` what `report` says of the input when it differs
    /// from what was told before: said once, across restarts too.
    static func remember(_ report: AppReport, before: AppReport.Told, in state: inout AppState) {
        guard let verdict = report.verdicts.first(where: { $0.input == name }) as? Verdict, let said = verdict.said,
              verdict.differs(from: before.said[name]), var data = state[keyPath: storage] else { return }
        remember(said, in: &data)
        state[keyPath: storage] = data
    }
}
