@testable import SSVCDaemon
import SSVCTestSupport
import Testing

/// One advisory read at a time in a daemon (issue 51, item 4).
@Suite("advisory read turns")
struct ReadTurnsTests {
    @Test("one turn at a time, handed on in arrival order; a waiter cancelled leaves the line without a turn")
    func oneAtATime() async {
        let turns = ReadTurns()
        #expect(await turns.take())
        let second = Task { await turns.take() }
        #expect(await eventually(within: 30, every: 0.01) { turns.waitingCount == 1 })
        let third = Task { await turns.take() }
        #expect(await eventually(within: 30, every: 0.01) { turns.waitingCount == 2 })

        second.cancel()
        #expect(await second.value == false, "a cancelled waiter has no turn")
        #expect(turns.waitingCount == 1)
        turns.give()
        #expect(await third.value, "the turn passes to the next in line")
        // The third holds it now: a fourth waits.
        let fourth = Task { await turns.take() }
        #expect(await eventually(within: 30, every: 0.01) { turns.waitingCount == 1 })
        turns.give()
        #expect(await fourth.value)
        turns.give()
        #expect(await turns.take(), "a free turn is taken at once")
    }

    @Test("a task cancelled before it asks never waits")
    func cancelledBefore() async {
        let turns = ReadTurns()
        #expect(await turns.take())
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await turns.take()
        }
        #expect(await late.value == false)
        #expect(turns.waitingCount == 0)
    }

    @Test("each daemon, by its state folder, has its own")
    func perDaemon() async {
        let a = ReadTurns.of(daemon: "/tmp/ssvc-turns-a"), b = ReadTurns.of(daemon: "/tmp/ssvc-turns-b")
        #expect(a === ReadTurns.of(daemon: "/tmp/ssvc-turns-a"))
        #expect(a !== b)
        #expect(await a.take())
        #expect(await b.take(), "another daemon's turn is free")
        a.give()
        b.give()
    }
}
