import Foundation
import NIOConcurrencyHelpers
import SSVCTestSupport
import Testing
@testable import SSVCDaemon

/// The real clock's timers, which share one Dispatch source (issue 55):
/// real time, short deadlines, and no expectation of how soon a call
/// comes on a busy machine, only that it comes, once, and never early.
/// The waits are long: at the start of the whole suite on 2 cores, a
/// test's tasks waited 33 s for a thread (issue 49's runs).
@Suite("WallClock: many timers on one Dispatch source")
struct WallClockTests {
    /// What fired: each call's name and the wall time it ran at.
    final class Calls: Sendable {
        private let box = NIOLockedValueBox<[(name: Int, at: Date)]>([])
        func add(_ name: Int) { box.withLockedValue { $0.append((name, Date())) } }
        var all: [(name: Int, at: Date)] { box.withLockedValue { $0 } }
    }

    @Test("every live call comes once and never before its deadline; a cancelled one never comes")
    func liveOnesOnceNeverEarly() async {
        let clock = WallClock()
        let calls = Calls()
        // 2 s ahead: the cancelled calls must still be waiting when they
        // are cancelled, however long a busy machine holds this thread.
        let start = Date().addingTimeInterval(2)
        // Added out of order, so that the source is set again and again.
        let offsets = (0..<24).map { 0.05 + Double(($0 * 7) % 24) * 0.02 }
        var timers: [any ClockTimer] = []
        var deadlines: [Int: Date] = [:]
        for (name, offset) in offsets.enumerated() {
            let deadline = start.addingTimeInterval(offset)
            deadlines[name] = deadline
            timers.append(clock.schedule(at: deadline, leeway: .milliseconds(10)) { calls.add(name) })
        }
        // The earliest among them, and others.
        let cancelled: Set<Int> = [0, 5, 10, 23]
        for name in cancelled { timers[name].cancel() }
        let live = Set(0..<24).subtracting(cancelled)
        #expect(await eventually(within: 120) { Set(calls.all.map(\.name)) == live })
        // Past the latest deadline and more: nothing else comes.
        await pause(0.6)
        let fired = calls.all
        #expect(fired.count == live.count, "\(fired.map(\.name))")
        #expect(Set(fired.map(\.name)) == live)
        for call in fired {
            #expect(call.at >= deadlines[call.name]!, "call \(call.name) came \(deadlines[call.name]!.timeIntervalSince(call.at)) s early")
        }
    }

    @Test("a near deadline added after a far one comes now, not with the far one")
    func earlierAddedLater() async {
        let clock = WallClock()
        let calls = Calls()
        let far = clock.schedule(after: 3_600, leeway: .milliseconds(500)) { calls.add(1) }
        _ = clock.schedule(after: 0.05, leeway: .milliseconds(10)) { calls.add(2) }
        _ = clock.schedule(at: Date(timeIntervalSince1970: 0), leeway: .milliseconds(10)) { calls.add(3) }
        #expect(await eventually(within: 120) { Set(calls.all.map(\.name)) == [2, 3] })
        far.cancel()
        await pause(0.2)
        #expect(calls.all.count == 2)
    }

    @Test("cancelling the earliest call, or thousands of calls, loses none of the others")
    func cancellingKeepsTheRest() async {
        let clock = WallClock()
        let calls = Calls()
        let first = clock.schedule(after: 0.1, leeway: .milliseconds(10)) { calls.add(1) }
        _ = clock.schedule(after: 0.2, leeway: .milliseconds(10)) { calls.add(2) }
        first.cancel()
        // Far ones, all cancelled: the heap is made again from the live ones.
        let many = (0..<5_000).map { index in clock.schedule(after: 1_000 + Double(index), leeway: .seconds(1)) { calls.add(100) } }
        for timer in many { timer.cancel() }
        _ = clock.schedule(after: 0.15, leeway: .milliseconds(10)) { calls.add(3) }
        #expect(await eventually(within: 120) { Set(calls.all.map(\.name)) == [2, 3] })
        await pause(0.2)
        #expect(calls.all.map(\.name).sorted() == [2, 3])
    }

    @Test("deadlines past Dispatch's range (years 2262 and 9999) neither come nor keep the source firing")
    func farDeadlines() async {
        let timers = WallTimers()
        let calls = Calls()
        _ = timers.add(at: 9_223_372_035, leeway: .seconds(1)) { calls.add(1) }
        _ = timers.add(at: 253_402_300_799, leeway: .seconds(1)) { calls.add(2) }
        _ = timers.add(at: Date().timeIntervalSince1970 + 0.05, leeway: .milliseconds(10)) { calls.add(3) }
        #expect(await eventually(within: 120) { calls.all.map(\.name) == [3] })
        await pause(0.5)
        #expect(calls.all.map(\.name) == [3])
        // Once for the near call; Dispatch may wake it once more early.
        #expect(timers.firings <= 3, "the source fired \(timers.firings) times")
    }

    @Test("the heap gives deadlines back earliest first, ties in the order added")
    func heapOrder() {
        var generator = SystemRandomNumberGenerator()
        var heap = DeadlineHeap()
        var added: [(Double, UInt64)] = []
        for id in UInt64(1)...2_000 {
            let seconds = Double(Int.random(in: 0..<300, using: &generator))
            heap.push(seconds, id: id)
            added.append((seconds, id))
        }
        var popped: [(Double, UInt64)] = []
        while let top = heap.top {
            popped.append(top)
            heap.pop()
        }
        let expected = added.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        #expect(popped.map(\.0) == expected.map(\.0))
        #expect(popped.map(\.1) == expected.map(\.1))
    }
}
