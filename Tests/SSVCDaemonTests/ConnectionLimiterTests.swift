import SSVCDaemon
import Testing

@Suite("ConnectionLimiter: shares of the control socket")
struct ConnectionLimiterTests {
    @Test("a user gets at most its share; root gets past the total by a reserve; a release makes room")
    func shares() {
        let limiter = ConnectionLimiter(descriptors: 1_024, perUser: 3)
        #expect(limiter.total == 768)
        #expect((0..<3).allSatisfy { _ in limiter.admit(65_534) })
        #expect(!limiter.admit(65_534))
        #expect(limiter.admit(1_000), "another user has a share of its own")
        limiter.release(65_534)
        #expect(limiter.admit(65_534))
    }

    @Test("with everyone's total taken, only root is still admitted, up to its reserve")
    func total() {
        let limiter = ConnectionLimiter(descriptors: 300, perUser: 1_000)
        #expect(limiter.total == 150)
        #expect(limiter.rootReserve == 32)
        for _ in 0..<150 { #expect(limiter.admit(1_000)) }
        #expect(!limiter.admit(1_001))
        #expect((0..<32).allSatisfy { _ in limiter.admit(0) })
        #expect(!limiter.admit(0))
    }

    @Test("a small descriptor limit is shared, never overdrawn: what is admitted stays below the limit", arguments: [64, 100, 256, 511, 512, 1_024, 65_536])
    func neverOverdrawn(descriptors: Int) {
        let limiter = ConnectionLimiter(descriptors: descriptors, perUser: 1_000)
        var admitted = 0
        while admitted <= descriptors, limiter.admit(admitted % 2 == 0 ? 0 : 1_000) { admitted += 1 }
        #expect(descriptors - admitted >= max(descriptors / 8, 16), "\(admitted) connections with \(descriptors) descriptors")
        #expect(admitted > 0)
    }
}
