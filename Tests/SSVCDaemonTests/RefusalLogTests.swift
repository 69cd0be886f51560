import NIOConcurrencyHelpers
@testable import SSVCDaemon
import Testing

@Suite("refusal lines: bounded per local user")
struct RefusalLogTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let now = NIOLockedValueBox(1_000.0)
        func advance(_ seconds: Double) { now.withLockedValue { $0 += seconds } }
    }

    @Test("five lines a minute per user, the rest counted and the count said with the next minute's first line")
    func perUser() {
        let clock = ManualClock()
        let log = RefusalLog(clock: { clock.now.withLockedValue { $0 } })
        let written = (0..<12).compactMap { log.line(uid: 1000, "bad \($0)") }
        #expect(written == ["bad 0", "bad 1", "bad 2", "bad 3", "bad 4 (the last line from this user for 60 s)"])
        #expect(log.line(uid: 1001, "other user") == "other user", "another user has lines of their own")
        clock.advance(59)
        #expect(log.line(uid: 1000, "still spent") == nil)
        clock.advance(1)
        #expect(log.line(uid: 1000, "next minute") == "next minute (8 more from this user in the interval before were not logged)")
        #expect(log.line(uid: 1000, "and on") == "and on")
    }

    @Test("a peer's text is cut to 256 bytes")
    func cut() throws {
        let log = RefusalLog(clock: { 0 })
        let line = try #require(log.line(uid: 0, String(repeating: "m", count: 60_000)))
        #expect(line == String(repeating: "m", count: 253) + "…", "256 bytes: 253 of the text and the three of the ellipsis")
    }
}
