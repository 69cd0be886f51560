import FoundationEssentials
import Logging
import SSVCControl
import SSVCCore
import SSVCSystemd

/// The one way a change leaves the daemon, whether a check, an offer or a
/// reload made it: the journal, the hooks, Watch events and systemd's
/// STATUS=, each derived from the app's `AppReport`. (The state and
/// metrics files are `StateWriter`'s.) It belongs to the check service's
/// actor and runs on it.
final class Reporter {
    /// What changed an app's state.
    enum Change {
        case check(CheckOutcome, notices: [MessageNotice])
        /// A phased offer's time came: the decision it held is now in force.
        case offer(PhasedOffer)
        /// A hold was set or lifted, or the limits changed: what the app is
        /// offered was settled again.
        case hold(HoldChange)
    }

    /// Why an app's limits changed; `caller` is the uid that asked.
    enum HoldChange: Equatable {
        case set(Hold, caller: UInt32?)
        case lifted(Hold, caller: UInt32?)
        /// A reload or the start put the configuration's limits in force.
        case limits
    }

    private let journal: CheckJournal
    private let logger: Logger
    private let environment: [String: String]
    /// `hooks-dir`'s runner; nil without one.
    private var hooks: HookRunner?
    /// The hooks running, whichever runner started them.
    private let hookPrograms = RunningCommands()
    private var watchers: [Int: (app: String?, continuation: AsyncStream<ControlEvent>.Continuation)] = [:]
    private var nextWatcher = 0
    /// Where STATUS= goes: systemd's notify socket, or a test's list.
    private let notify: @Sendable (String) -> Void

    init(logger: Logger, environment: [String: String], hooksDirectory: String?, notify: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        self.environment = environment
        self.notify = notify
        journal = CheckJournal(logger: logger)
        setHooks(hooksDirectory)
    }

    /// After a reload: a new `hooks-dir` gets a new runner.
    func setHooks(_ directory: String?) {
        hooks = directory.map { HookRunner(directory: $0, environment: environment, logger: logger, running: hookPrograms) }
    }

    /// Reports one app's change: `before` is what was last told of it,
    /// `report` the app as it is now; `summary` the STATUS= line after it.
    /// A hook, an event or an entry about a value goes out exactly when
    /// the value differs between the two reports.
    func report(_ report: AppReport, before: AppReport.Told, change: Change, at time: Date, summary: String) {
        var notices: [MessageNotice] = []
        var logged = true
        let kind: ControlEvent.Kind
        switch change {
        case let .check(outcome, checkNotices):
            notices = checkNotices
            kind = .check
            journal.check(report, outcome: outcome)
            for notice in notices { journal.notice(report.app, notice) }
        case let .offer(offer):
            kind = .offer
            journal.offer(report, offer: offer)
        case let .hold(holdChange):
            kind = .hold
            // Past the caller's lines, what the hold keeps back is not written either.
            logged = journal.hold(report, change: holdChange)
        }
        // Unlogged, it is said in the state and in Watch all the same.
        let (held, was) = (report.held, before.held)
        if logged, let held, held.version != was?.version || held.by != was?.by {
            journal.keptBack(report, held: held)
        } else if logged, let was, held == nil, report.state.currentVersion == before.currentVersion {
            journal.noLongerKeptBack(report, was: was)
        }
        if let wait = report.windowWait, wait != before.windowWait, let offer = report.pending { journal.windowWait(report, offer: offer) }
        let inputChanges = report.inputChanges(since: before)
        for inputChange in inputChanges { journal.input(report, inputChange) }
        if let hooks {
            if before.status != report.status { hooks.run(report.hookEvent(.statusChanged, previous: before.status)) }
            for notice in notices { hooks.run(report.hookEvent(.notice, previous: before.status, message: notice.text)) }
            for inputChange in inputChanges { hooks.run(report.hookEvent(inputChange.hook, previous: before.status)) }
        }
        if !watchers.isEmpty {
            let appStatus = report.appStatus
            publish(ControlEvent(kind: kind, at: RFC3339.format(time), app: appStatus, message: nil))
            for inputChange in inputChanges { publish(ControlEvent(kind: inputChange.event, at: RFC3339.format(time), app: appStatus, message: nil)) }
            for notice in notices {
                publish(ControlEvent(kind: .notice, at: RFC3339.format(time), app: appStatus, message: notice.description))
            }
        }
        status(summary)
    }

    /// A reload put a configuration in force.
    func reloaded(apps: Int, at time: Date, summary: String) {
        logger.info("configuration reloaded: \(apps) apps")
        publish(ControlEvent(kind: .reload, at: RFC3339.format(time), app: nil, message: nil))
        status(summary)
    }

    /// systemd's STATUS=.
    func status(_ summary: String) {
        notify("STATUS=\(summary)")
    }

    // MARK: Watch

    /// A stream of events for one app or all; it ends at `finishWatchers`.
    /// A watcher that does not keep up loses the oldest events, never the
    /// daemon's time. `unwatch` is called, off the actor, when it ends.
    func watch(_ name: String?, unwatch: @escaping @Sendable (Int) -> Void) -> AsyncStream<ControlEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ControlEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = nextWatcher
        nextWatcher += 1
        watchers[id] = (name, continuation)
        continuation.onTermination = { _ in unwatch(id) }
        return stream
    }

    func unwatch(_ id: Int) {
        watchers[id] = nil
    }

    /// The daemon stops: hooks running are killed, and none starts.
    func stopHooks() {
        hookPrograms.stop()
    }

    func finishWatchers() {
        for watcher in watchers.values { watcher.continuation.finish() }
    }

    private func publish(_ event: ControlEvent) {
        for watcher in watchers.values where watcher.app == nil || watcher.app == event.app?.name || event.kind == .reload {
            watcher.continuation.yield(event)
        }
    }
}
