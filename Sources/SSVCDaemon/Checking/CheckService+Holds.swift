import FoundationEssentials
import Logging
import SSVCControl
import SSVCCore

/// `ssvcctl hold` and `unhold`: a hold set at run time, kept in the state
/// file, that offers an app nothing above one version (SPEC §14).
extension CheckService {
    /// Why a hold cannot be set.
    package enum HoldRefusal: Error {
        case noSuchApp
        case cannot(String)
    }

    /// Holds `name` at `version`, else at the version running now, and
    /// settles what it is offered at once. Setting a hold again moves it.
    /// Returns once the hold is on disk.
    package func hold(_ name: String, at version: String?, caller: UInt32?) async throws(HoldRefusal) -> AppStatus {
        let (status, write) = try holding(name, at: version, caller: caller)
        return await answered(status, once: write)
    }

    /// Lifts `name`'s hold, if any, and settles what it is offered; nil
    /// when there is no such app.
    ///
    /// Both return once the state is on disk: a hold the caller was told
    /// of survives a crash the next moment.
    package func unhold(_ name: String, caller: UInt32?) async -> AppStatus? {
        guard let (status, write) = unholding(name, caller: caller) else { return nil }
        return await answered(status, once: write)
    }

    /// `status` once `write` has ended; when it could not put the change
    /// on disk (a full disk refused both the holds log and the state
    /// file), its note says so: the change is in force, and lost if the
    /// daemon stops before its state is written.
    func answered(_ status: AppStatus, once write: StateWriter.Ticket?) async -> AppStatus {
        guard let write else { return status }
        await written(write)
        guard let problem = writer.notOnDisk(write) else { return status }
        var status = status
        let said = "\(AppStatus.notOnDisk): \(DisplayText.cut(problem, bytes: 512)); in force until ssvcd stops"
        status.note = status.note.map { "\($0); \(said)" } ?? said
        return status
    }

    /// `hold`'s change, made at once; the answer waits for `write`, the
    /// append of its line to the holds log, which holds and unholds that
    /// come together share (the state and metrics files follow within a
    /// second).
    func holding(_ name: String, at version: String?, caller: UInt32?) throws(HoldRefusal) -> (status: AppStatus, write: StateWriter.Ticket?) {
        guard let app = app(named: name) else { throw .noSuchApp }
        let current = state.apps[name] ?? AppState()
        let hold: Hold
        if let version {
            hold = Hold(version: version, since: runtime.clock.now)
            if let problem = hold.problem(scheme: app.versionScheme) { throw .cannot(problem) }
        } else if case let .fixed(key) = app.version {
            // Configured: known before any check has read it, and newer
            // than what the last check read if the file changed since.
            let running = RunningVersion(key: key, configuredNumber: app.versionNumber, scheme: app.versionScheme)
            hold = Hold(version: key, number: running.number, since: runtime.clock.now)
        } else {
            guard let running = current.currentVersion, !running.isEmpty else {
                throw .cannot(
                    "the running version of \(name) is not known yet (no check has read it): name the version, as in ssvcctl hold \(name) VERSION"
                )
            }
            hold = Hold(version: running, number: current.currentVersionNumber, since: runtime.clock.now)
        }
        // Holding again at the same version changes nothing: the hold keeps its time.
        if let existing = current.hold, existing.version == hold.version { return (report(app, now: runtime.clock.now).appStatus, nil) }
        var next = current
        next.hold = hold
        state.apps[name] = next
        settle(app, change: .set(hold, caller: caller))
        // An operator's command that answered is on disk.
        return (report(app, now: runtime.clock.now).appStatus, writer.logHold(HoldLogRecord(app: name, hold: hold), writeSource))
    }

    /// `unhold`'s change, made at once, and the write to wait for.
    func unholding(_ name: String, caller: UInt32?) -> (status: AppStatus, write: StateWriter.Ticket?)? {
        guard let app = app(named: name) else { return unholdingKept(name, caller: caller) }
        var write: StateWriter.Ticket?
        if var next = state.apps[name], let hold = next.hold {
            next.hold = nil
            state.apps[name] = next
            settle(app, change: .lifted(hold, caller: caller))
            write = writer.logHold(HoldLogRecord(app: name, hold: nil), writeSource)
        }
        return (report(app, now: runtime.clock.now).appStatus, write)
    }
}

extension CheckService {
    /// Lifts the hold kept for an app no longer configured (SPEC §14: kept
    /// for when it comes back, at most 1,000): nothing else is left of the
    /// app. Nil when there is no such hold. Said in the journal without a
    /// bound per caller: each such hold can be lifted once.
    func unholdingKept(_ name: String, caller: UInt32?) -> (status: AppStatus, write: StateWriter.Ticket?)? {
        guard let hold = state.apps[name]?.hold else { return nil }
        state.apps[name] = nil
        let by = caller.map { " (by uid \($0))" } ?? ""
        var metadata: Logger.Metadata = ["MESSAGE_ID": "\(MessageID.holdChanged.rawValue)", "SSVC_APP": "\(name)", "SSVC_HOLD": "\(hold.version)"]
        if let caller { metadata["SSVC_CALLER_UID"] = "\(caller)" }
        logger.notice("\(name): hold at \(hold.version) lifted\(by); the app is not configured", metadata: metadata)
        var status = AppStatus(
            name: name, format: .ssvc, schedule: .never, status: .unknown, nextCheckReason: .manualOnly, consecutiveFailures: 0, stale: false
        )
        status.note = "not configured: its hold at \(hold.version) is lifted"
        return (status, writer.logHold(HoldLogRecord(app: name, hold: nil), writeSource))
    }
}

extension CheckService {
    /// Lifts each hold that cannot apply under its app's scheme (the
    /// scheme changed since it was set, or the state file was edited),
    /// saying so: a hold shown but not applied would mislead.
    func liftInvalidHolds() {
        for app in configuration.apps {
            guard var next = state.apps[app.name], let hold = next.hold, let problem = hold.problem(scheme: app.versionScheme) else { continue }
            next.hold = nil
            state.apps[app.name] = next
            changed(app.name)
            logger.warning(
                "\(app.name): hold lifted: \(DisplayText.cut(problem)); set it again with ssvcctl hold \(app.name) VERSION",
                metadata: ["MESSAGE_ID": "\(MessageID.holdChanged.rawValue)", "SSVC_APP": "\(app.name)"]
            )
        }
    }
}
