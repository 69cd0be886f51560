import Dispatch
import Synchronization

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
            let state = Mutex<(resumed: Bool, timer: DispatchSourceTimer?)>((false, nil))
            let finish: @Sendable (T?) -> Void = { value in
                let first = state.withLock { state -> Bool in
                    defer { state.resumed = true }
                    // A cancelled timer never fires, so an idle daemon is not woken by it.
                    state.timer?.cancel()
                    state.timer = nil
                    return !state.resumed
                }
                if first { continuation.resume(returning: value) }
            }
            if let seconds {
                let timer = DispatchSource.makeTimerSource(queue: limits)
                timer.schedule(deadline: .now() + seconds)
                timer.setEventHandler { finish(nil) }
                state.withLock { $0.timer = timer }
                timer.activate()
            }
            DispatchQueue(label: label).async { finish(work()) }
        }
    }
}
