@preconcurrency import Glibc
import FoundationEssentials
import Logging
import SSVCCore
import SSVCPosix

/// The one path by which the state file, and the metrics file beside it,
/// are written. A change is written within `writeDelay`, together with
/// every change made meanwhile: each write encodes every app, and a
/// thousand apps written after each check held the daemon's one thread most
/// of the time (found by the soak). A `Check` call, a reload and a stop
/// write at once (`writeNow`). A hold is on disk before its answer: a line
/// appended to the holds log and fdatasynced (`logHold`), holds that come
/// together sharing one append; the state file follows with its batch, and
/// once it is written the log loses the lines it holds (issue 52: a state
/// file per hold wrote 46 GB for 7,232 holds, and holds sharing writes of
/// the state file still wrote 304 MiB for 1,000 holds of 10,000 apps).
/// Without the log (it cannot be written, or is past its bound), a hold
/// waits for a write of the state file, which holds that come together
/// share (`save`).
///
/// The files are encoded, written and fsynced off the executor, one write
/// at a time: a slow disk delays the callers who wait for their write, never
/// the socket's other clients. Changes made while a write runs go into the
/// next. A write that fails (a full disk) is said once, not at every
/// change; the state stays in memory and a timer tries again after 15 s,
/// then twice as long each time up to 15 min, and the recovery is said too.
/// It belongs to the check service's actor and runs on it; its timers and
/// its writes' ends call `wake`, which comes back to the actor and calls
/// `due` with what happened.
final class StateWriter {
    /// What is written, asked for only when a file is.
    struct Source {
        var state: () -> DaemonState
        var metrics: () -> [MetricsExposition.App]
    }

    /// What woke the writer.
    enum Event: Sendable {
        /// The batch of changes is due.
        case batch
        /// A file that could not be written is tried again.
        case retry
        /// A write off the executor ended.
        case written(Outcome)
        /// A write of the holds log ended: its size after, or why it failed.
        case logged(Result<Int, Problem>)
    }

    /// One write's files, taken on the actor and written off it.
    struct Job: Sendable {
        var store: StateStore?
        var state: DaemonState?
        var metricsPath: String?
        var metrics: [MetricsExposition.App]?

        var isEmpty: Bool { (store == nil || state == nil) && (metricsPath == nil || metrics == nil) }

        func run() -> Outcome {
            var outcome = Outcome()
            if let store, let state {
                outcome.state = Result { () throws(StateStore.Failure) in try store.save(state) }.mapError { Problem(description: $0.description) }
            }
            if let metricsPath, let metrics {
                outcome.metrics = Result { () throws(FileSystem.Failure) in
                    try FileSystem.replace(metricsPath, with: MetricsExposition.render(metrics), mode: 0o644, durable: false)
                }.mapError { Problem(description: $0.description) }
                outcome.metricsPath = metricsPath
            }
            return outcome
        }
    }

    /// What a write did: nil for a file it did not write.
    struct Outcome: Sendable {
        /// The apps whose responses were left out, or why it failed.
        var state: Result<[String], Problem>?
        var metrics: Result<Void, Problem>?
        var metricsPath: String?
    }

    struct Problem: Error, Sendable {
        var description: String
    }

    /// A change that asked to be written: it is on disk once a write that
    /// started after it has ended, or, for a hold, once the append of its
    /// line has. Tickets count up; a write carries every ticket given
    /// before it started.
    struct Ticket: Sendable {
        fileprivate var number: Int
        /// A hold whose line is in the log's queue.
        fileprivate var logged = false
    }

    /// One write of the holds log.
    private enum LogJob: Sendable {
        case append([UInt8])
        /// The lines no state file on disk holds yet; none: the log goes.
        case replace([UInt8])

        func run(_ log: HoldLog) -> Result<Int, Problem> {
            do {
                switch self {
                case let .append(lines):
                    return .success(try log.append(lines))
                case let .replace(lines):
                    try log.replace(with: lines)
                    return .success(lines.count)
                }
            } catch {
                return .failure(Problem(description: error.description))
            }
        }
    }

    static let writeDelay = 1.0
    static let retrySeconds: ClosedRange<Double> = 15...900

    /// Nil when the state file belongs to a newer ssvc: the state then
    /// lives in memory only, and the file is left as it is.
    let store: StateStore?
    private(set) var metricsPath: String?
    private let clock: any DaemonClock
    private let logger: Logger
    private let wake: @Sendable (Event) async -> Void

    /// The files no longer say what the daemon holds.
    private var stateDirty = false
    private var metricsDirty = true
    /// The metrics file is due: its batch ran out, or a caller asked.
    /// A hold writes the state at once and leaves the metrics to the batch.
    private var metricsDue = false
    /// The state file is due: its batch ran out, or a caller asked. A
    /// change made while a write runs waits for its batch all the same.
    private var stateDue = false
    /// Why a file cannot be written now; said once, and once more when it
    /// can again. While either is set, the retry timer is armed.
    private(set) var stateProblem: String?
    private(set) var metricsProblem: String?
    private var batch: ClockTimer?
    private var retry: ClockTimer?
    /// The delay before the next retry.
    private(set) var retryDelay = retrySeconds.lowerBound
    /// No write starts any more: the stop writes the last one itself.
    private var closing = false
    private var stopped = false
    /// The write running off the executor: the last ticket it carries.
    private var writing: Int?
    /// The last ticket given, and the last one a write that ended carried.
    private var lastAsked = 0
    private var lastWritten = 0
    /// Callers waiting for a ticket's write to end.
    private var waiting: [(ticket: Ticket, waiter: CheckedContinuation<Void, Never>)] = []

    /// The holds log; nil when the state is not written.
    private let log: HoldLog?
    /// Lines not given to an append yet, and the ticket of the last.
    private var logQueue: [UInt8] = []
    private var logQueueTicket = 0
    /// The lines in the log or its queue that no state file on disk holds
    /// yet: what a rewrite of the log keeps.
    private var logUnsaved: [(ticket: Int, line: [UInt8])] = []
    /// The log's size on disk once the write of it under way has ended
    /// (its bound counts what is being written too), and before that write.
    private var logSize = 0
    private var logSizeBefore = 0
    /// The log holds lines a state file on disk holds too (or an append
    /// failed part of the way): the next write of it is a rewrite.
    private var logStale = false
    /// The write of the log running off the executor: the last ticket it carries.
    private var logging: Int?
    /// Every logged hold up to this ticket is on disk.
    private var lastLogged = 0
    /// Why the log cannot be written, said once: holds wait for the state
    /// file meanwhile. Each state file written lets the log be tried
    /// again (`logRetry`), once, as a rewrite; its success is said.
    private var logProblem: String?
    private var logRetry = false
    private let lineEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
    /// Callers waiting for the writer to fall idle (the stop).
    private var waitingForIdle: [CheckedContinuation<Void, Never>] = []
    /// The apps whose responses the last write left out, said when it changes.
    private var responsesLeftOut: [String] = []

    init(store: StateStore?, metricsPath: String?, clock: any DaemonClock, logger: Logger, wake: @escaping @Sendable (Event) async -> Void) {
        self.store = store
        self.metricsPath = metricsPath
        self.clock = clock
        self.logger = logger
        self.wake = wake
        log = store.map { HoldLog(directory: $0.directory) }
        // Left by a start that could not write its lines into the state:
        // the first state file written holds them.
        var info = stat()
        if let log, stat(log.path, &info) == 0, info.st_size > 0 {
            logSize = Int(info.st_size)
            logStale = true
        }
    }

    /// Something changed: written within `writeDelay`.
    func changed(state: Bool = true, metrics: Bool = true) {
        stateDirty = stateDirty || state
        metricsDirty = metricsDirty || metrics
        guard batch == nil, !stopped else { return }
        let wake = wake
        batch = clock.schedule(after: Self.writeDelay, leeway: .milliseconds(100)) { await wake(.batch) }
    }

    /// A reload moved the metrics file (or gave it up): the old one goes,
    /// the new one is written at the next write.
    func moveMetrics(to path: String?) {
        guard path != metricsPath else { return }
        if let old = metricsPath { unlink(old) }
        metricsPath = path
        metricsProblem = nil
        metricsDirty = true
    }

    /// Something woke the writer: writes what is due.
    func due(_ event: Event, _ source: Source) {
        switch event {
        case .batch:
            batch = nil
            (stateDue, metricsDue) = (true, true)
        case .retry:
            retry = nil
            if stateProblem != nil { stateDirty = true }
            if metricsProblem != nil { metricsDirty = true }
            (stateDue, metricsDue) = (true, true)
        case let .written(outcome):
            if let writing {
                lastWritten = writing
                if case .success? = outcome.state { stateWritten(through: writing) }
            }
            writing = nil
            record(outcome)
            answerWaiting()
        case let .logged(outcome):
            logged(outcome)
        }
        write(source)
        startLogging()
        answerIdleIfIdle()
    }

    /// Writes what changed now, and what `state` and `metrics` say
    /// changed, without waiting for the batch. Returns the ticket of that
    /// write.
    @discardableResult
    func writeNow(_ source: Source, state: Bool = false, metrics: Bool = false) -> Ticket {
        stateDirty = stateDirty || state
        metricsDirty = metricsDirty || metrics
        (stateDue, metricsDue) = (true, true)
        batch?.cancel()
        batch = nil
        lastAsked += 1
        write(source)
        return Ticket(number: lastAsked)
    }

    /// Writes the state file at once (the metrics follow with their batch)
    /// and returns the ticket to wait for. Changes that come while a write
    /// runs share the next one.
    func save(_ source: Source) -> Ticket {
        stateDirty = true
        stateDue = true
        lastAsked += 1
        write(source)
        return Ticket(number: lastAsked)
    }

    /// A hold set or lifted, already in the state: its line is appended to
    /// the log at once (holds that come while an append runs share the
    /// next), and the state file and metrics follow with their batch.
    /// Returns the ticket to wait for. Without the log, as `save`.
    func logHold(_ record: HoldLogRecord, _ source: Source) -> Ticket {
        let line = record.line(lineEncoder)
        changed()
        guard log != nil, logProblem == nil, !closing, logSize + logQueue.count + line.count <= HoldLog.maximumBytes else { return save(source) }
        lastAsked += 1
        logQueue += line
        logQueueTicket = lastAsked
        logUnsaved.append((lastAsked, line))
        startLogging()
        return Ticket(number: lastAsked, logged: true)
    }

    /// Resumes `waiter` when the write carrying `ticket` has ended (written
    /// or failed, which is said in the journal), or the stop has: after the
    /// stop's last write nothing more is written, and a caller that asks
    /// then (a `Check` that ended after it) must not hold the stop up.
    func whenWritten(_ ticket: Ticket, then waiter: CheckedContinuation<Void, Never>) {
        if isWritten(ticket) || stopped { return waiter.resume() }
        waiting.append((ticket, waiter))
    }

    /// Resumes `waiter` once no write runs and none is to start now.
    func whenIdle(then waiter: CheckedContinuation<Void, Never>) {
        if writing != nil || logging != nil { waitingForIdle.append(waiter) } else { waiter.resume() }
    }

    /// Resumes `waiter` once no write runs; none starts after this.
    func close(then waiter: CheckedContinuation<Void, Never>) {
        closing = true
        for timer in [batch, retry] { timer?.cancel() }
        (batch, retry) = (nil, nil)
        whenIdle(then: waiter)
    }

    private func answerIdleIfIdle() {
        guard writing == nil, logging == nil else { return }
        for waiter in waitingForIdle { waiter.resume() }
        waitingForIdle = []
    }

    func isWritten(_ ticket: Ticket) -> Bool {
        ticket.number <= lastWritten || (ticket.logged && ticket.number <= lastLogged)
    }

    /// Why the change behind `ticket`, its write ended, is not on disk:
    /// neither its line in the holds log nor a state file holds it (a full
    /// disk took both); nil when one does. Asked as the caller is answered,
    /// so `stateProblem` is what the last write of the state found.
    func notOnDisk(_ ticket: Ticket) -> String? {
        if ticket.logged, ticket.number <= lastLogged { return nil }
        guard store != nil else { return "the state file belongs to a newer ssvc, so the state lives in memory only" }
        if let stateProblem { return stateProblem }
        return ticket.number <= lastWritten ? nil : "the daemon stopped before it was written"
    }

    private func answerWaiting() {
        let answered = waiting.filter { isWritten($0.ticket) }
        waiting.removeAll { isWritten($0.ticket) }
        for (_, waiter) in answered { waiter.resume() }
    }

    /// The last write, once `close` has resumed: the state, whatever was
    /// written before, on the caller's thread; the metrics file is removed,
    /// as figures of a stopped daemon would read as current. Returns
    /// whether the state file was written.
    func stop(_ source: Source) -> Bool {
        closing = true
        stopped = true
        for timer in [batch, retry] { timer?.cancel() }
        (batch, retry) = (nil, nil)
        let outcome = Job(store: store, state: source.state()).run()
        record(outcome)
        // The state written holds every hold: the log goes.
        if case .success? = outcome.state, let log { _ = LogJob.replace([]).run(log) }
        lastWritten = lastAsked
        answerWaiting()
        if let metricsPath { unlink(metricsPath) }
        return store != nil && stateProblem == nil
    }

    /// Starts a write of what is dirty and due, unless one runs: its end
    /// starts the next.
    private func write(_ source: Source) {
        guard writing == nil else { return }
        guard !closing else { return answerIdleIfIdle() }
        var job = Job()
        if stateDue, stateDirty, let store {
            job.store = store
            job.state = source.state()
            stateDirty = false
        }
        if stateDue, store == nil { stateDirty = false }
        stateDue = false
        if metricsDue, metricsDirty, let metricsPath {
            job.metricsPath = metricsPath
            job.metrics = source.metrics()
            metricsDirty = false
        }
        if metricsDue, metricsPath == nil { metricsDirty = false }
        metricsDue = false
        // A change waiting for its batch is not on disk yet (a hold whose
        // line is still on its way to the log): a write without the state
        // then carries only what was on disk already. Answering by the
        // last ticket lost 16 of 504 holds answered before a kill -9.
        let carried = job.state != nil || !stateDirty ? lastAsked : lastWritten
        guard !job.isEmpty else {
            lastWritten = carried
            answerWaiting()
            settleRetry()
            return answerIdleIfIdle()
        }
        writing = carried
        let (wake, taken) = (wake, job)
        Task {
            let outcome = await Offload.run("io.ssvc.state-write") { taken.run() } ?? Outcome()
            await wake(.written(outcome))
        }
    }

    /// A state file holding every change up to `ticket` is on disk: the
    /// log's lines up to it are no longer needed, and the log is rewritten
    /// without them (removed, most often) by its next write.
    private func stateWritten(through ticket: Int) {
        logUnsaved.removeAll { $0.ticket <= ticket }
        if logSize > 0 || logging != nil { logStale = true }
        if logProblem != nil {
            logStale = true
            logRetry = true
        }
    }

    /// Starts a write of the log, unless one runs: its end starts the next.
    private func startLogging() {
        guard logging == nil, let log, !closing else { return }
        if logProblem != nil {
            guard logRetry else { return }
            logRetry = false
        }
        let job: LogJob
        logSizeBefore = logSize
        if logStale {
            let lines = logUnsaved.flatMap(\.line)
            job = .replace(lines)
            logSize = lines.count
            logStale = false
        } else if !logQueue.isEmpty {
            job = .append(logQueue)
            logSize += logQueue.count
        } else {
            return
        }
        logQueue = []
        logging = logQueueTicket
        let wake = wake
        Task {
            let outcome = await Offload.run("io.ssvc.hold-log") { job.run(log) } ?? .failure(Problem(description: "the write did not end"))
            await wake(.logged(outcome))
        }
    }

    /// A write of the log ended. A failure is said once; the holds it
    /// carried, and those after, wait for the state file, written at once.
    private func logged(_ outcome: Result<Int, Problem>) {
        let carried = logging ?? lastLogged
        logging = nil
        switch outcome {
        case let .success(size):
            logSize = size
            lastLogged = max(lastLogged, carried)
            if logProblem != nil, let log { logger.notice("holds are written to \(log.path) again") }
            logProblem = nil
            answerWaiting()
        case let .failure(problem):
            // An append is cut back, a rewrite leaves the file it replaces.
            logSize = logSizeBefore
            if logProblem == nil {
                logger.error(
                    "holds wait for the state file to be written, not the holds log, until the next state file is: \(problem.description)",
                    metadata: ["SSVC_ERROR": "\(problem.description)"]
                )
            }
            logProblem = problem.description
            // Whatever the file holds now, a rewrite puts it right.
            logStale = true
            stateDirty = true
            stateDue = true
        }
    }

    /// Says what a write did: a failure once, a recovery once.
    private func record(_ outcome: Outcome) {
        switch outcome.state {
        case nil:
            break
        case let .success(leftOut):
            if leftOut != responsesLeftOut, !leftOut.isEmpty, let store {
                logger.warning(
                    "the state is past \(StateStore.maximumBytes >> 20) MiB: the stored responses of \(leftOut.joined(separator: ", ")) are left out of \(store.path) (kept in memory; after a restart those apps fetch their documents whole)",
                    metadata: ["SSVC_ERROR": "state past \(StateStore.maximumBytes) bytes"]
                )
            }
            responsesLeftOut = leftOut
            if stateProblem != nil, let store { logger.notice("state written again to \(store.path)") }
            stateProblem = nil
        case let .failure(problem):
            if stateProblem == nil {
                logger.error(
                    "cannot save the state, keeping it in memory and trying again from time to time: \(problem.description)",
                    metadata: ["SSVC_ERROR": "\(problem.description)"]
                )
            }
            stateProblem = problem.description
        }
        // A reload may have moved the file meanwhile: the old one's fate is not news.
        guard let result = outcome.metrics, outcome.metricsPath == metricsPath, let path = metricsPath else { return }
        switch result {
        case .success:
            if metricsProblem != nil { logger.info("metrics file \(path) written again") }
            metricsProblem = nil
        case let .failure(problem):
            if metricsProblem == nil {
                logger.warning("cannot write the metrics file: \(problem.description)", metadata: ["SSVC_ERROR": "\(problem.description)"])
            }
            metricsProblem = problem.description
        }
    }

    /// Arms the retry while a file cannot be written (the only timer an
    /// otherwise idle daemon has then); once both are written, disarms it
    /// and starts the doubling over.
    private func settleRetry() {
        guard stateProblem == nil, metricsProblem == nil else {
            guard retry == nil, !closing else { return }
            let wake = wake
            retry = clock.schedule(after: retryDelay, leeway: .seconds(1)) { await wake(.retry) }
            retryDelay = min(retryDelay * 2, Self.retrySeconds.upperBound)
            return
        }
        retry?.cancel()
        retry = nil
        retryDelay = Self.retrySeconds.lowerBound
    }
}
