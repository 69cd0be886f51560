@preconcurrency import Glibc
import Dispatch
import FoundationEssentials
import SSVCCore

/// "What time is it" and "call me at wall time T", the only way the
/// daemon's logic learns the time. `WallClock` runs on Dispatch wall time;
/// `ManualClock` is moved by a test, which then runs in virtual time.
package protocol DaemonClock: Sendable {
    var now: Date { get }

    /// Calls `action` at `deadline`, or at once when it has passed. The
    /// call may come up to `leeway` late, never early on the wall clock.
    func schedule(at deadline: Date, leeway: Duration, _ action: @escaping @Sendable () async -> Void) -> ClockTimer
}

extension DaemonClock {
    /// `seconds` from now.
    package func schedule(after seconds: TimeInterval, leeway: Duration, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        schedule(at: now.addingTimeInterval(seconds), leeway: leeway, action)
    }
}

/// A scheduled call; `cancel` makes sure it does not happen.
package protocol ClockTimer: Sendable {
    func cancel()
}

/// The real clock: timers on Dispatch wall time (time asleep counts),
/// with leeway so that the kernel may coalesce wake-ups, and no timer of
/// its own: an idle daemon is not woken.
package struct WallClock: DaemonClock {
    /// Timers fire here, then hop into the caller's actor. A serial queue
    /// of its own: a global one would start libdispatch's monitor.
    private static let queue = DispatchQueue(label: "io.ssvc.timers")

    package init() {}

    package var now: Date { Date() }

    package func schedule(at deadline: Date, leeway: Duration, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        let source = DispatchSource.makeTimerSource(queue: Self.queue)
        // Within years 0…9999, so that no planned time, however far, traps.
        let seconds = max(CivilTime.clampedSeconds(deadline), 0)
        let whole = seconds.rounded(.down)
        let wall = DispatchWallTime(timespec: timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9)))
        let (leewaySeconds, attoseconds) = leeway.components
        source.schedule(wallDeadline: wall, leeway: .nanoseconds(Int(leewaySeconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
        source.setEventHandler { Task { await action() } }
        source.activate()
        return WallTimer(source: source)
    }
}

/// A Dispatch source, cancelled from any thread (`cancel` is thread-safe).
private final class WallTimer: ClockTimer, @unchecked Sendable {
    private let source: DispatchSourceTimer

    init(source: DispatchSourceTimer) {
        self.source = source
    }

    func cancel() {
        source.cancel()
    }
}
