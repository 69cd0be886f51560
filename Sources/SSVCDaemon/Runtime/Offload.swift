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
    static func run<T: Sendable>(_ label: String, within seconds: Double? = nil, _ work: @escaping @Sendable () -> T) async -> T? {
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
        }
    }
}
