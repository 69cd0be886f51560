import Testing
@testable import SSVCCore

/// Inputs that make a backtracking engine take exponential or quadratic time:
/// at these lengths (2^48 and 2^60 paths) a backtracking matcher would not
/// finish within the suite's time limit, whatever the machine.
@Suite("LinearPattern: inputs that make backtracking engines take exponential time", .timeLimit(.minutes(1)))
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

    @Test func longTagManyTimes() throws {
        let pattern = try LinearPattern(#"(\d+)\.(\d+)$"#)
        let hostile = String(repeating: "1", count: 255) + "."         // 256 characters, no match
        let valid = String(repeating: "1", count: 250) + ".12345"      // 256 characters, a match
        #expect(hostile.count == 256 && valid.count == 256)
        for _ in 0..<3_800 {
            #expect(pattern.firstMatch(in: hostile) == nil)
        }
        let match = try #require(pattern.firstMatch(in: valid))
        #expect(match.map { $0.map(String.init) } == [valid, String(repeating: "1", count: 250), "12345"])
    }

    /// The deepest nesting allowed, every level an unbounded loop that can match empty.
    @Test func deepNestedEmptyLoops() throws {
        let pattern = String(repeating: "(", count: 100) + "a*" + String(repeating: ")*", count: 100) + "$"
        let text = String(repeating: "a", count: 60)
        let match = try #require(try LinearPattern(pattern).firstMatch(in: text + "b"))
        #expect(match[0] == "")          // the a's can't reach "$", so the first match is empty, at the end
        #expect(try strings(pattern, text)?.first == text)
        // (Swift's Regex is exponential here, so the expectation is written out.)
        #expect(try linear("((a*)*b)*$", "abab" + text) == [64..<64, nil, nil])
    }
}
