import Foundation
@testable import SSVCCore
import Testing

@Suite("GitHub's rate-limit reset")
struct RateLimitResetTests {
    @Test("X-RateLimit-Reset is a Unix second, bounded like Retry-After")
    func reset() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.rateLimitReset("1800000600", now: now) == Date(timeIntervalSince1970: 1_800_000_600))
        #expect(RetryAfter.rateLimitReset("1700000000", now: now) == now)
        #expect(RetryAfter.rateLimitReset("99999999999", now: now) == now.addingTimeInterval(86_400))
        #expect(RetryAfter.rateLimitReset("soon", now: now) == nil)
        #expect(RetryAfter.rateLimitReset("", now: now) == nil)
    }
}
