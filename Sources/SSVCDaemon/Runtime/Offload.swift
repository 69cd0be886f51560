import Dispatch
import NIOConcurrencyHelpers

/// Work whose cost grows with outside input (a server's document, dpkg's
/// database, a pattern run over tags) is done here, off the daemon's one
/// executor, which must stay free to answer the socket and run timers.
enum Offload {
    /// Where the time limits run: a serial queue, not a global one (which
    /// would start libdispatch's once-a-second worker-pool monitor).
    private static let limits = DispatchQueue(label: "io.ssvc.offload-limits")

    /// Runs `work` on a serial queue of its own and returns its result;
    /// nil when `seconds` pass first. The work then runs on to its end,
    /// its result dropped: nothing waits for it, the stop included.
    ///
    /// With `cancellation`, a cancelled task (the stop) also gets nil at
    /// once, and `cancellation` is set for the work to see and end early;
    /// the work is started even then, so that what it gives back on its
    /// way out (a read's turn) is given. Without, cancellation is not seen:
    /// a state write always ends.
    static func run<T: Sendable>(
        _ label: String, within seconds: Double? = nil, cancellation: Cancellation? = nil, _ work: @escaping @Sendable () -> T
    ) async -> T? {
        let finisher = NIOLockedValueBox<(@Sendable (T?) -> Void)?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                // A dispatch source may be cancelled from any thread.
                nonisolated(unsafe) let timer = seconds.map { _ in DispatchSource.makeTimerSource(queue: limits) }
                let resumed = NIOLockedValueBox(false)
                let finish: @Sendable (T?) -> Void = { value in
                    let first = resumed.withLockedValue { resumed in
                        defer { resumed = true }
                        return !resumed
                    }
                    guard first else { return }
                    // A cancelled timer never fires, so an idle daemon is not woken by it.
                    timer?.cancel()
                    continuation.resume(returning: value)
                }
                if let timer, let seconds {
                    timer.schedule(deadline: .now() + seconds)
                    timer.setEventHandler { finish(nil) }
                    timer.activate()
                }
                DispatchQueue(label: label).async { finish(work()) }
                if let cancellation {
                    finisher.withLockedValue { $0 = finish }
                    // Cancelled before the handler could see `finish`.
                    if Task.isCancelled {
                        cancellation.set()
                        finish(nil)
                    }
                }
            }
        } onCancel: {
            guard let cancellation else { return }
            cancellation.set()
            let finish = finisher.withLockedValue { $0 }
            finish?(nil)
        }
    }

    /// Set once a task waiting for offloaded work is cancelled: the work
    /// asks it between its steps and ends early.
    final class Cancellation: Sendable {
        private let flag = NIOLockedValueBox(false)

        var isSet: Bool { flag.withLockedValue { $0 } }

        func set() { flag.withLockedValue { $0 = true } }
    }
}
