import SSVCTestSupport
import Testing
@testable import SSVCCore

/// Inputs that make a backtracking engine take exponential or quadratic time:
/// at these lengths (2^48 and 2^60 paths) a backtracking matcher would not
/// finish within the suite's time limit, whatever the machine. (The limit
/// is 5 minutes, not less: under ThreadSanitizer beside a busy machine the
/// longest of these takes most of one; 2^48 steps take days.)
@Suite("LinearPattern: inputs that make backtracking engines take exponential time", .timeLimit(.minutes(5)))
struct LinearPatternLinearTimeTests {
    @Test func nestedPlusOnNearMatch() throws {
        let text = String(repeating: "a", count: 48) + "!"
        #expect(try strings("^(a+)+$", text) == nil)
        #expect(try strings("^(a+)+$", String(repeating: "a", count: 48)) ==
                [String(repeating: "a", count: 48), String(repeating: "a", count: 48)])
    }

    @Test func hostileReleaseTag() throws {
        let text = "billing-v" + String(repeating: "1", count: 60) + "x"
        #expect(try strings(#"^billing-v((\d+\.?)+)$"#, text) == nil)
    }

    @Test func longTagManyTimes() async throws {
        let pattern = try LinearPattern(#"(\d+)\.(\d+)$"#)
        let hostile = String(repeating: "1", count: 255) + "."         // 256 characters, no match
        let valid = String(repeating: "1", count: 250) + ".12345"      // 256 characters, a match
        #expect(hostile.count == 256 && valid.count == 256)
        // Ten seconds under ThreadSanitizer: off the pool.
        let matched = await offPool { (0..<3_800).count { _ in pattern.firstMatch(in: hostile) != nil } }
        #expect(matched == 0)
        let match = try #require(pattern.firstMatch(in: valid))
        #expect(match.map { $0.map(String.init) } == [valid, String(repeating: "1", count: 250), "12345"])
    }

    /// The deepest nesting allowed, every level an unbounded loop that can match empty.
    @Test func deepNestedEmptyLoops() async throws {
        let pattern = String(repeating: "(", count: 100) + "a*" + String(repeating: ")*", count: 100) + "$"
        let text = String(repeating: "a", count: 60)
        // Seconds under ThreadSanitizer: off the pool.
        let (first, whole, loops) = try await offPool {
            let match = try LinearPattern(pattern).firstMatch(in: text + "b").map { $0[0].map(String.init) }
            return (match, try strings(pattern, text)?.first, try linear("((a*)*b)*$", "abab" + text))
        }
        let match = try #require(first)
        #expect(match == "")          // the a's can't reach "$", so the first match is empty, at the end
        #expect(whole == text)
        // (Swift's Regex is exponential here, so the expectation is written out.)
        #expect(loops == [64..<64, nil, nil])
    }
}
