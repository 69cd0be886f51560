import Testing
@testable import SSVCDaemon

/// The daemon's own randomness for spreading checks: a generator seeded
/// once from the system's, no longer a getrandom call per plan (issue 55).
@Suite("the live runtime's jitter")
struct LiveJitterTests {
    @Test("spreads evenly over [0, 1): 10,000 draws, each tenth of the range within 1.5 points of its share")
    func even() {
        let jitter = CheckService.Runtime.live.jitter
        var tenths = [Int](repeating: 0, count: 10)
        for _ in 0..<10_000 {
            let value = jitter()
            #expect(value >= 0 && value < 1)
            tenths[min(9, Int(value * 10))] += 1
        }
        // A tenth's count has a standard deviation of 30: 150 is five of them.
        #expect(tenths.allSatisfy { abs($0 - 1_000) < 150 }, "\(tenths)")
    }

    @Test("each daemon is seeded anew: two live runtimes do not draw the same numbers")
    func seeded() {
        let (first, second) = (CheckService.Runtime.live.jitter, CheckService.Runtime.live.jitter)
        #expect((0..<8).map { _ in first() } != (0..<8).map { _ in second() })
    }
}
