import FoundationEssentials
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
    package func hold(_ name: String, at version: String?, caller: UInt32?) throws(HoldRefusal) -> AppStatus {
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
        if let existing = current.hold, existing.version == hold.version { return report(app, now: runtime.clock.now).appStatus }
        var next = current
        next.hold = hold
        state.apps[name] = next
        settle(app, change: .set(hold, caller: caller))
        // An operator's command that answered is on disk.
        writer.writeNow(writeSource)
        return report(app, now: runtime.clock.now).appStatus
    }

    /// Lifts `name`'s hold, if any, and settles what it is offered; nil
    /// when there is no such app.
    ///
    /// Both write the state at once: a hold the caller was told of
    /// survives a crash the next moment.
    package func unhold(_ name: String, caller: UInt32?) -> AppStatus? {
        guard let app = app(named: name) else { return nil }
        if var next = state.apps[name], let hold = next.hold {
            next.hold = nil
            state.apps[name] = next
            settle(app, change: .lifted(hold, caller: caller))
            writer.writeNow(writeSource)
        }
        return report(app, now: runtime.clock.now).appStatus
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
