import Foundation
import SSVCCore
@testable import SSVCDaemon
import Testing

@Suite("Turnstile")
struct TurnstileTests {
    /// One actor for the turnstile and its record, as in the service.
    actor Gate {
        let turnstile: Turnstile
        var arrived: [Int] = []
        var entered: [Int] = []
        var inside = 0
        var most = 0

        init(capacity: Int) {
            turnstile = Turnstile(capacity: capacity)
        }

        func pass(_ number: Int) async {
            arrived.append(number)
            await turnstile.enter()
            entered.append(number)
            inside += 1
            most = max(most, inside)
            for _ in 0..<3 { await Task.yield() }
            inside -= 1
            turnstile.leave()
        }

        var empty: Bool { turnstile.inside == 0 && turnstile.waitingCount == 0 }
    }

    @Test("at most its capacity inside, the rest let in in the order they came", arguments: [1, 2, 8])
    func fifo(capacity: Int) async {
        let gate = Gate(capacity: capacity)
        await withTaskGroup(of: Void.self) { group in
            for number in 0..<200 { group.addTask { await gate.pass(number) } }
        }
        #expect(await gate.most == capacity, "filled, never past")
        // Let in in arrival order; with room for more than one, those let in
        // together may start in another order on a test's executor (the
        // daemon's, the main queue, runs them in order).
        let (arrived, entered) = (await gate.arrived, await gate.entered)
        for (index, number) in entered.enumerated() {
            let arrival = arrived.firstIndex(of: number) ?? -1000
            #expect(capacity == 1 ? arrival == index : abs(arrival - index) < capacity, "\(number) arrived \(arrival)th, entered \(index)th")
        }
        #expect(await gate.entered.count == 200)
        #expect(await gate.empty)
    }
}
