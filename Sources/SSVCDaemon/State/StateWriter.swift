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
/// write at once (`writeNow`). A write that fails (a full disk) is said
/// once, not at every change; the state stays in memory and a timer tries
/// again after 15 s, then twice as long each time up to 15 min, and the
/// recovery is said too. It belongs to the check service's actor and runs
/// on it; its timers call `wake`, which comes back to the actor and calls
/// `due` with the timer that fired.
final class StateWriter {
    /// What is written, asked for only when a file is.
    struct Source {
        var state: () -> DaemonState
        var metrics: () -> [MetricsExposition.App]
    }

    /// Which of its timers fired.
    enum Timer: Sendable {
        /// The batch of changes is due.
        case batch
        /// A file that could not be written is tried again.
        case retry
    }

    static let writeDelay = 1.0
    static let retrySeconds: ClosedRange<Double> = 15...900

    /// Nil when the state file belongs to a newer ssvc: the state then
    /// lives in memory only, and the file is left as it is.
    let store: StateStore?
    private(set) var metricsPath: String?
    private let clock: any DaemonClock
    private let logger: Logger
    private let wake: @Sendable (Timer) async -> Void

    /// The files no longer say what the daemon holds.
    private var stateDirty = false
    private var metricsDirty = true
    /// Why a file cannot be written now; said once, and once more when it
    /// can again. While either is set, the retry timer is armed.
    private(set) var stateProblem: String?
    private(set) var metricsProblem: String?
    private var batch: ClockTimer?
    private var retry: ClockTimer?
    /// The delay before the next retry.
    private(set) var retryDelay = retrySeconds.lowerBound
    private var stopped = false
    /// The apps whose responses the last write left out, said when it changes.
    private var responsesLeftOut: [String] = []

    init(store: StateStore?, metricsPath: String?, clock: any DaemonClock, logger: Logger, wake: @escaping @Sendable (Timer) async -> Void) {
        self.store = store
        self.metricsPath = metricsPath
        self.clock = clock
        self.logger = logger
        self.wake = wake
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

    /// A timer of ours fired: writes what is due.
    func due(_ timer: Timer, _ source: Source) {
        switch timer {
        case .batch:
            batch = nil
        case .retry:
            retry = nil
            if stateProblem != nil { stateDirty = true }
            if metricsProblem != nil { metricsDirty = true }
        }
        write(source)
    }

    /// Writes what changed now, and what `state` and `metrics` say
    /// changed, without waiting for the batch.
    func writeNow(_ source: Source, state: Bool = false, metrics: Bool = false) {
        stateDirty = stateDirty || state
        metricsDirty = metricsDirty || metrics
        batch?.cancel()
        batch = nil
        write(source)
    }

    /// The last write: the state, whatever was written before; the metrics
    /// file is removed, as figures of a stopped daemon would read as current.
    /// Returns whether the state file was written.
    func stop(_ source: Source) -> Bool {
        stopped = true
        for timer in [batch, retry] { timer?.cancel() }
        (batch, retry) = (nil, nil)
        stateDirty = true
        saveState(source)
        if let metricsPath { unlink(metricsPath) }
        return store != nil && stateProblem == nil
    }

    private func write(_ source: Source) {
        guard !stopped else { return }
        if stateDirty { saveState(source) }
        if metricsDirty { writeMetrics(source) }
        settleRetry()
    }

    private func saveState(_ source: Source) {
        stateDirty = false
        guard let store else { return }
        do {
            let leftOut = try store.save(source.state())
            if leftOut != responsesLeftOut, !leftOut.isEmpty {
                logger.warning(
                    "the state is past \(StateStore.maximumBytes >> 20) MiB: the stored responses of \(leftOut.joined(separator: ", ")) are left out of \(store.path) (kept in memory; after a restart those apps fetch their documents whole)",
                    metadata: ["SSVC_ERROR": "state past \(StateStore.maximumBytes) bytes"]
                )
            }
            responsesLeftOut = leftOut
            if stateProblem != nil { logger.notice("state written again to \(store.path)") }
            stateProblem = nil
        } catch {
            if stateProblem == nil {
                logger.error(
                    "cannot save the state, keeping it in memory and trying again from time to time: \(error)",
                    metadata: ["SSVC_ERROR": "\(error)"]
                )
            }
            stateProblem = error.description
        }
    }

    private func writeMetrics(_ source: Source) {
        metricsDirty = false
        guard let path = metricsPath else { return }
        do {
            try FileSystem.replace(path, with: MetricsExposition.render(source.metrics()), mode: 0o644, durable: false)
            if metricsProblem != nil { logger.info("metrics file \(path) written again") }
            metricsProblem = nil
        } catch {
            if metricsProblem == nil {
                logger.warning("cannot write the metrics file: \(error)", metadata: ["SSVC_ERROR": "\(error)"])
            }
            metricsProblem = error.description
        }
    }

    /// Arms the retry while a file cannot be written (the only timer an
    /// otherwise idle daemon has then); once both are written, disarms it
    /// and starts the doubling over.
    private func settleRetry() {
        guard stateProblem == nil, metricsProblem == nil else {
            guard retry == nil, !stopped else { return }
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
