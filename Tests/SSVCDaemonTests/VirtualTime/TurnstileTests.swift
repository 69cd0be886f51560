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
        /// Each number's place in line, as the turnstile let it in.
        var admission: [Int: Int] = [:]
        var inside = 0
        var most = 0

        init(capacity: Int) {
            turnstile = Turnstile(capacity: capacity)
        }

        func pass(_ number: Int) async {
            arrived.append(number)
            admission[number] = await turnstile.enter()
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
        // Let in in arrival order, exactly. When they next run is up to the
        // executor: with room for more than one, a caller let in may run
        // after many let in later (seen under ThreadSanitizer beside a busy
        // machine: let in 96th, ran 199th), so the turnstile's own order is
        // what is compared; with room for one, nobody else can run inside.
        let (arrived, admission) = (await gate.arrived, await gate.admission)
        #expect(arrived.map { admission[$0] ?? -1 } == Array(0..<200), "places in line by arrival: \(arrived.map { admission[$0] ?? -1 })")
        if capacity == 1 { #expect(await gate.entered == arrived) }
        #expect(await gate.entered.count == 200)
        #expect(await gate.empty)
    }
}
