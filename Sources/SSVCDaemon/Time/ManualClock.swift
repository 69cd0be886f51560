import FoundationEssentials
import NIOConcurrencyHelpers

/// A clock that moves only when told (NIO's `EmbeddedEventLoop`, swift-clocks'
/// `TestClock`): `advance` fires what falls due, in deadline order (ties in
/// the order they were scheduled), each at its own instant and to its end
/// before the next. A test of a schedule, a retry or an offer runs in
/// milliseconds and cannot flake. Leeway is ignored: a call comes on time.
package final class ManualClock: DaemonClock {
    private struct Scheduled {
        let deadline: Date
        let order: Int
        let action: @Sendable () async -> Void
    }

    private struct Contents {
        var now: Date
        var nextOrder = 0
        var scheduled: [Int: Scheduled] = [:]
    }

    private let contents: NIOLockedValueBox<Contents>

    package init(now: Date) {
        contents = NIOLockedValueBox(Contents(now: now))
    }

    package var now: Date { contents.withLockedValue { $0.now } }

    /// The deadlines of the calls still to come, earliest first.
    package var deadlines: [Date] {
        contents.withLockedValue { $0.scheduled.values.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }.map(\.deadline) }
    }

    package func schedule(at deadline: Date, leeway: Duration, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        let order = contents.withLockedValue { contents in
            let order = contents.nextOrder
            contents.nextOrder += 1
            contents.scheduled[order] = Scheduled(deadline: deadline, order: order, action: action)
            return order
        }
        return ManualTimer(clock: self, order: order)
    }

    fileprivate func cancel(_ order: Int) {
        _ = contents.withLockedValue { $0.scheduled.removeValue(forKey: order) }
    }

    /// Moves time `seconds` on, firing everything due on the way,
    /// including what the calls themselves schedule within the span.
    package func advance(by seconds: TimeInterval) async {
        await advance(to: now.addingTimeInterval(seconds))
    }

    /// Moves time to `target` (never back), firing everything due up to it.
    /// A cancelled task stops firing: a test whose timers re-arm themselves
    /// at the same instant forever fails at its time limit, not hangs.
    package func advance(to target: Date) async {
        while !Task.isCancelled, let next = takeNext(upTo: target) {
            await next()
        }
        contents.withLockedValue { $0.now = max($0.now, target) }
    }

    /// The earliest call due by `target`, with time moved to its deadline.
    private func takeNext(upTo target: Date) -> (@Sendable () async -> Void)? {
        contents.withLockedValue { contents in
            guard let first = contents.scheduled.values.min(by: { ($0.deadline, $0.order) < ($1.deadline, $1.order) }),
                  first.deadline <= target else { return nil }
            contents.scheduled[first.order] = nil
            contents.now = max(contents.now, first.deadline)
            return first.action
        }
    }
}

private struct ManualTimer: ClockTimer {
    let clock: ManualClock
    let order: Int

    func cancel() {
        clock.cancel(order)
    }
}
