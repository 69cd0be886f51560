@preconcurrency import Glibc
import Dispatch
import FoundationEssentials
import NIOConcurrencyHelpers
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
/// its own: an idle daemon is not woken. Every timer shares one Dispatch
/// source, set for the earliest: with a source each, every arming woke
/// libdispatch's manager thread (issue 55; 3–4 ms of a 1,000-app start).
package struct WallClock: DaemonClock {
    package init() {}

    package var now: Date { Date() }

    package func schedule(at deadline: Date, leeway: Duration, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        // Within years 0…9999, so that no planned time, however far, traps.
        let seconds = max(CivilTime.clampedSeconds(deadline), 0)
        return WallTimer(id: WallTimers.shared.add(at: seconds, leeway: leeway, action))
    }
}

/// One scheduled call of the wall clock.
private struct WallTimer: ClockTimer {
    let id: UInt64

    func cancel() {
        WallTimers.shared.cancel(id)
    }
}

/// The wall clock's timers: a heap of deadlines, and one Dispatch source
/// set for the earliest. Called from any thread; the source's handler runs
/// on a serial queue of its own (a global one would start libdispatch's
/// monitor) and starts each due call in a task of its own. Unchecked:
/// the source, which Dispatch does not mark Sendable, is set only under
/// the lock.
final class WallTimers: @unchecked Sendable {
    static let shared = WallTimers()

    private struct Entry {
        let seconds: Double
        let leeway: Duration
        let action: @Sendable () async -> Void
    }

    private struct State {
        /// The calls not yet made nor cancelled, by id.
        var entries: [UInt64: Entry] = [:]
        /// (deadline, id), earliest first; ids no longer in `entries` are
        /// passed over when they come to the top.
        var heap = DeadlineHeap()
        var nextID: UInt64 = 0
        /// What the source is set for; nil when for no time.
        var armedFor: Double?
        /// How many times the source has fired (tests).
        var firings = 0
    }

    /// How far ahead the source is ever set. Dispatch counts wall time in
    /// 64-bit nanoseconds and fires at once for a time near their end
    /// (year 2262): with one source for all, such a call would fire it
    /// over and over. Past this, the source fires once a horizon and is
    /// set again.
    static let horizon: Double = 30 * 86_400

    private let state = NIOLockedValueBox(State())
    private let source: DispatchSourceTimer

    init() {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "io.ssvc.timers"))
        source.schedule(wallDeadline: .distantFuture)
        source.setEventHandler { [weak self] in self?.fire() }
        source.activate()
    }

    deinit {
        source.cancel()
    }

    func add(at seconds: Double, leeway: Duration, _ action: @escaping @Sendable () async -> Void) -> UInt64 {
        state.withLockedValue { state in
            state.nextID += 1
            state.entries[state.nextID] = Entry(seconds: seconds, leeway: leeway, action: action)
            state.heap.push(seconds, id: state.nextID)
            rearm(&state)
            return state.nextID
        }
    }

    /// How many times the source has fired.
    var firings: Int { state.withLockedValue { $0.firings } }

    func cancel(_ id: UInt64) {
        state.withLockedValue { state in
            guard state.entries.removeValue(forKey: id) != nil else { return }
            // Cancelled ids wait in the heap until they reach its top; past
            // twice the live ones, the heap is made again from those.
            if state.heap.count > 2 * state.entries.count + 64 {
                state.heap = DeadlineHeap(state.entries.map { ($0.value.seconds, $0.key) })
            }
            rearm(&state)
        }
    }

    /// Makes every call that is due, in deadline order, then sets the
    /// source for the next.
    private func fire() {
        let due: [@Sendable () async -> Void] = state.withLockedValue { state in
            let now = Date().timeIntervalSince1970
            state.firings += 1
            var due: [@Sendable () async -> Void] = []
            while let (seconds, id) = state.heap.top, seconds <= now {
                state.heap.pop()
                if let entry = state.entries.removeValue(forKey: id) { due.append(entry.action) }
            }
            state.armedFor = nil
            rearm(&state)
            return due
        }
        for action in due { Task { await action() } }
    }

    /// Sets the source for the earliest live deadline, when it is not set
    /// for it already: no wake-up for a cancelled call, none when idle.
    private func rearm(_ state: inout State) {
        while let (_, id) = state.heap.top, state.entries[id] == nil { state.heap.pop() }
        guard let (seconds, id) = state.heap.top, let entry = state.entries[id] else {
            if state.armedFor != nil {
                source.schedule(wallDeadline: .distantFuture)
                state.armedFor = nil
            }
            return
        }
        guard state.armedFor != seconds else { return }
        let wall: DispatchWallTime
        let now = Date().timeIntervalSince1970
        if seconds <= now {
            // Due: now. Dispatch takes a wall time of 0 s for "never", and
            // with one source for all, one such call would hold up every
            // other (found by WallClockTests).
            wall = .now()
        } else {
            // Rounded up: never set a nanosecond before the deadline.
            let target = min(seconds, now + Self.horizon)
            let whole = target.rounded(.down)
            let nanoseconds = min(Int(((target - whole) * 1e9).rounded(.up)), 999_999_999)
            wall = DispatchWallTime(timespec: timespec(tv_sec: Int(whole), tv_nsec: nanoseconds))
        }
        // At most an hour of leeway, in nanoseconds that cannot overflow.
        let (leewaySeconds, attoseconds) = entry.leeway.components
        let leeway = Int(min(max(leewaySeconds, 0), 3_600)) * 1_000_000_000 + Int(max(attoseconds, 0) / 1_000_000_000)
        source.schedule(wallDeadline: wall, leeway: .nanoseconds(leeway))
        state.armedFor = seconds
    }
}

/// A binary min-heap of (deadline, id): ties in the order added.
struct DeadlineHeap {
    private var items: [(seconds: Double, id: UInt64)] = []

    init() {}

    init(_ items: [(Double, UInt64)]) {
        for (seconds, id) in items { push(seconds, id: id) }
    }

    var count: Int { items.count }

    var top: (Double, UInt64)? { items.first.map { ($0.seconds, $0.id) } }

    private static func earlier(_ a: (seconds: Double, id: UInt64), _ b: (seconds: Double, id: UInt64)) -> Bool {
        a.seconds < b.seconds || (a.seconds == b.seconds && a.id < b.id)
    }

    mutating func push(_ seconds: Double, id: UInt64) {
        items.append((seconds, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.earlier(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, Self.earlier(items[left], items[smallest]) { smallest = left }
            if right < items.count, Self.earlier(items[right], items[smallest]) { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
