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
        #expect(limiter.total == 44)
        for _ in 0..<44 { #expect(limiter.admit(1_000)) }
        #expect(!limiter.admit(1_001))
        #expect((0..<ConnectionLimiter.rootReserve).allSatisfy { _ in limiter.admit(0) })
        #expect(!limiter.admit(0))
    }
}
