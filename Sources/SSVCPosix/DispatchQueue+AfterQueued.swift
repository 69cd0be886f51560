import Dispatch
import NIOConcurrencyHelpers

extension DispatchQueue {
    /// Where `afterQueued`'s deadlines run: not a queue that a stalled
    /// reader (journald, standard error's) can hold.
    private static let deadlines = DispatchQueue(label: "io.ssvc.deadlines")

    /// Calls `done` once: when the work queued here before now has run, or
    /// after `seconds`, whichever comes first. For a stop, which must not
    /// lose its last lines to a slow reader nor wait for ever on one that
    /// reads nothing.
    public func afterQueued(within seconds: Double, _ done: @escaping @Sendable () -> Void) {
        let once = NIOLockedValueBox(false)
        let finish: @Sendable () -> Void = {
            if once.withLockedValue({ fired in defer { fired = true }; return !fired }) { done() }
        }
        async(execute: finish)
        Self.deadlines.asyncAfter(deadline: .now() + seconds, execute: finish)
    }
}
