@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Dispatch

/// The daemon's one executor for Swift concurrency: the main actor, every
/// other actor, every task and every `Task.sleep` run on Dispatch's main
/// queue.
///
/// Swift's own default executor runs tasks on `DispatchQueue.global()`, and
/// the first worker thread of a global queue arms libdispatch's worker-pool
/// monitor: a 1 s timer that then wakes the process for the rest of its
/// life. The main queue, drained after `dispatchMain()`, never arms it. The
/// checks are small and the socket is read on NIO's own thread, so one
/// thread for the rest costs nothing that matters and leaves actors nothing
/// to interleave.
///
/// It is installed with the `ExperimentalCustomExecutors` SPI
/// (`_createExecutors(factory:)`, SE-0471's mechanism). Should a later Swift
/// change that SPI, this file stops compiling; `install()` also checks at
/// start that the runtime took it.
final class MainQueueExecutor: MainExecutor, TaskExecutor, SchedulingExecutor {
    static let shared = MainQueueExecutor()

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.main.async { self.runJob(job) }
    }

    /// Delays for `Task.sleep` and `Clock.sleep`: a Dispatch timer on the
    /// main queue, not the global queue the runtime would use otherwise.
    /// Every clock in this process counts in `Duration`.
    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        let job = UnownedJob(job)
        guard let delay = delay as? Duration else {
            preconditionFailure("MainQueueExecutor: a clock whose Duration is \(C.Duration.self)")
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + Self.interval(delay)) { self.runJob(job) }
    }

    private func runJob(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }

    /// Runs the main queue for the rest of the process: `dispatchMain()`
    /// never returns, and the daemon ends with `exit`.
    func run() throws {
        dispatchMain()
    }

    /// Nothing to stop: the process exits instead.
    func stop() {}

    var isMainExecutor: Bool { true }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(.main))
    }

    /// Whole nanoseconds, clamped to what Dispatch takes.
    static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        guard seconds < Int64(Int.max / 1_000_000_000) - 1 else { return .never }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// Makes this the main and default executor. Call before any task
    /// starts; crashes if the runtime did not take it, rather than run with
    /// the wake-ups it exists to avoid.
    static func install() {
        _createExecutors(factory: Factory.self)
        precondition(
            Task.defaultExecutor === shared && MainActor.executor === shared,
            "the Swift runtime did not install MainQueueExecutor"
        )
    }

    private struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { shared }
        static var defaultExecutor: any TaskExecutor { shared }
    }
}
