import Testing
@testable import SSVCCore
import SSVCTestSupport

@Suite("LinearPattern: what needs backtracking is refused, naming it") struct LinearPatternRefusalTests {
    /// Each refused construct: the pattern, a phrase the message must contain, and the offset.
    @Test(arguments: [
        (#"(a)\1"#, "backreference (\\1)", 3),
        (#"(?<n>a)\k<n>"#, "backreference (\\k<", 7),
        (#"(a)\g1"#, "backreference", 3),
        ("a(?=b)", "lookahead", 1),
        ("a(?!b)", "negative lookahead", 1),
        ("(?<=a)b", "lookbehind", 0),
        ("(?<!a)b", "negative lookbehind", 0),
        ("(?>a+)b", "atomic group", 0),
        ("a*+", "possessive", 1),
        ("a++", "possessive", 1),
        ("a?+", "possessive", 1),
        ("a{1,2}+", "possessive", 1),
        ("(?i)abc", "inline flags", 0),
        ("a(?s:.)", "inline flags", 1),
        ("(?(1)a|b)", "conditional", 0),
        ("(a", "'(' is never closed", 0),
        ("((a)", "'(' is never closed", 0),
        ("a)", "')' without '('", 1),
        ("*a", "nothing to repeat", 0),
        ("a|+", "nothing to repeat", 2),
        ("(?:{2})", "nothing to repeat", 3),
        ("a**", "follows another quantifier", 2),
        ("a{2}{3}", "follows another quantifier", 4),
        ("^*", "anchor", 1),
        ("a{3,2}", "upper bound below", 1),
        ("a{1001}", "above 1000", 1),
        ("a{2,5000}", "above 1000", 1),
        ("a{99999999999999999999}", "above 1000", 1),
        ("a{", "literal brace", 1),
        ("a{,3}", "literal brace", 1),
        ("[z-a]", "bad class range", 1),
        ("[ab", "unterminated", 0),
        ("[", "unterminated", 0),
        ("[]", "unterminated", 0),
        ("[a[b]]", "nested", 2),
        ("[a&&b]", "set operations", 2),
        (#"[\d-z]"#, "range", 1),
        (#"[a-\d]"#, "range", 3),
        (#"[\b]"#, "inside a character class", 1),
        (#"ab\"#, "trailing backslash", 2),
        (#"\q"#, "unknown escape \\q", 0),
        (#"\v"#, "unknown escape", 0),
        (#"\p{L}"#, "not supported", 0),
        (#"\Z"#, "not supported", 0),
        (#"\0"#, "not supported", 0),
        (#"\xZZ"#, "hex", 0),
        (#"\u{D800}"#, "not a Unicode scalar", 0),
        (#"\u{}"#, "hex", 0),
        ("(?P<n>a)", "not supported", 0),
        ("(?<1n>a)", "group name", 0),
        ("(?<n>a)(?<n>b)", "duplicate group name", 7),
        ("(?#note)", "not supported", 0),
        ("(?R)", "not supported", 0),
        ("e\u{301}(", "never closed", 1),   // offsets count Characters
    ])
    func refused(pattern: String, phrase: String, offset: Int) {
        #expect {
            try LinearPattern(pattern)
        } throws: { error in
            guard let error = error as? LinearPattern.SyntaxError else { return false }
            return error.message.contains(phrase) && error.offset == offset
                && error.description == "at character \(offset): \(error.message)"
        }
    }

    @Test func sizeLimits() throws {
        let deep = String(repeating: "(", count: 101) + "a" + String(repeating: ")", count: 101)
        #expect(throws: LinearPattern.SyntaxError.self) { try LinearPattern(deep) }
        #expect(messageOf(deep)?.contains("nested deeper than 100") == true)
        #expect(messageOf("(?:a{1000}){11}")?.contains("pattern too large") == true)
        #expect(messageOf("((a{1000}){1000}){1000}")?.contains("pattern too large") == true)
        // Empty bodies compile to nothing, however often they are repeated.
        #expect(try LinearPattern("(?:(?:(?:){1000}){1000}){1000}").firstMatch(in: "x")?.first == "")
        #expect(messageOf(String(repeating: "|", count: 20_000))?.contains("pattern too large") == true)
        #expect(messageOf(String(repeating: "a", count: 10_001))?.contains("pattern too large") == true)
        #expect(messageOf(String(repeating: "(", count: 100_000)) != nil)
        #expect(messageOf(String(repeating: ")", count: 100_000)) != nil)
        #expect(messageOf(String(repeating: "[", count: 100_000)) != nil)
    }

    func messageOf(_ pattern: String) -> String? {
        do {
            _ = try LinearPattern(pattern)
            return nil
        } catch {
            return error.message
        }
    }

    /// Arbitrary junk patterns either throw a SyntaxError or compile and match without trapping.
    @Test func junkNeverTraps() {
        var rng = SplitMix64(seed: 42)
        let pieces: [String] = ["(", ")", "[", "]", "{", "}", "|", "*", "+", "?", "^", "$", ".", "\\", "-", ",",
                                "0", "1", "3", "9", "a", "b", "d", "k", "p", "u", "x", "z", "A", "B", "D", "S", "W",
                                "Z", "<", ">", "=", "!", ":", "#", "&", "~", " ", "é", "😀", "\n", "{2}", "{1,3}",
                                "(?:", "(?<n>", "\\u{41}", "\\x4", "[^"]
        var compiled = 0
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...16, using: &rng)
            let pattern = (0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
            guard let regex = try? LinearPattern(pattern) else { continue }
            compiled += 1
            for text in ["", "a", "ab1-.", "é😀\n", "{}()[]", String(repeating: "ab", count: 50)] {
                if let match = regex.firstMatch(in: text) {
                    #expect(match.count == regex.captureCount + 1)
                    #expect(match[0] != nil)
                }
            }
        }
        #expect(compiled > 500)
    }
}
