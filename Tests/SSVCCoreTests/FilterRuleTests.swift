import Testing
@testable import SSVCCore

@Suite("Turkcell filter rules")
struct FilterRuleTests {
    func check(_ rule: String, matches: [String?], rejects: [String?], sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = FilterRule(rule)
        for value in matches {
            #expect(parsed.matches(value), "\"\(rule)\" should match \(value.map { "\"\($0)\"" } ?? "nil")", sourceLocation: sourceLocation)
        }
        for value in rejects {
            #expect(!parsed.matches(value), "\"\(rule)\" should not match \(value.map { "\"\($0)\"" } ?? "nil")", sourceLocation: sourceLocation)
        }
    }

    @Test("the spec's examples")
    func specExamples() {
        check("5.1,6.*", matches: ["6.0", "5.1", "6.1.2"], rejects: ["4.3", "5.2", "6"])
        check("iPod2*", matches: ["iPod2,1", "ipod2"], rejects: ["iPad2,1"])
        check("1.0,!1.0,2.0", matches: ["2.0"], rejects: ["3.0", "1.0"])
        check("<= 5.0, 7.0, > 10.0", matches: ["4.0", "7.0", "11.0", "5", "5.0.0"], rejects: ["6.0", "10.0", "10", "5.0.1"])
        check("< -56", matches: ["-60", "-57"], rejects: ["-56", "-10", "0", "56"])
        check(" Ab*d ", matches: ["ABCCCCCD", "abd", "a b d"], rejects: ["aabd", "abdx"])
    }

    @Test("empty, missing and wildcard rules")
    func emptyAndMissing() {
        check("*", matches: ["", nil, "anything"], rejects: [])
        check("", matches: ["", nil, "anything"], rejects: [])
        check(" , ,", matches: ["", "x"], rejects: [])
        check("''", matches: ["", nil, "  "], rejects: ["x"])
        check("!''", matches: ["en", "x"], rejects: ["", nil])
        check("!*", matches: [], rejects: ["", nil, "x"])
        check("en", matches: ["en", " EN "], rejects: ["", nil, "eng"])
    }

    @Test("exclusions with and without inclusions")
    func exclusions() {
        check("!a", matches: ["b", ""], rejects: ["a"])
        check("!a,!b", matches: ["c"], rejects: ["a", "b"])
        check("a*,!ab*", matches: ["a", "ac"], rejects: ["ab", "abc", "b"])
        check("!", matches: ["x", ""], rejects: [])
    }

    @Test("part order does not matter")
    func partOrder() {
        for value in ["a", "b", "c", ""] {
            #expect(FilterRule("!b,a").matches(value) == FilterRule("a,!b").matches(value))
            #expect(FilterRule("a,b,!c").matches(value) == FilterRule("!c,b,a").matches(value))
        }
    }

    @Test("case and white space are ignored on both sides")
    func caseAndSpace() {
        check("  Deb ian  ", matches: ["debian", "DEBIAN", " de\tbi an "], rejects: ["ubuntu"])
        check("> = 3", matches: ["4", "3"], rejects: ["2"])  // "> = 3" is ">=3" after stripping
        #expect(FilterRule("> = 3").includes == [.comparison(.greaterOrEqual, "3")])
    }

    @Test("every comparison operator, against integers", arguments: [
        ("<5", ["4", "-1", "04"], ["5", "6"]),
        ("<=5", ["5", "4", "005"], ["6"]),
        (">5", ["6", "10"], ["5", "4", "-6"]),
        (">=5", ["5", "6"], ["4"]),
        ("<>5", ["4", "6", "-5"], ["5", "05"]),
        ("<0", ["-1"], ["0", "-0"]),
        (">-3", ["-2", "0", "3"], ["-3", "-4"]),
    ])
    func comparisons(rule: String, matching: [String], rejecting: [String]) {
        check(rule, matches: matching, rejects: rejecting)
    }

    @Test("dotted versions of unequal length compare with missing parts as 0")
    func dottedVersions() {
        check(">=6", matches: ["6", "6.0", "6.0.1", "10.1", "7"], rejects: ["5.9.9", "5"])
        check("<6.1", matches: ["6", "6.0.9", "5.99"], rejects: ["6.1", "6.1.0", "6.10"])
        check("<>2.0", matches: ["2.0.1", "1"], rejects: ["2", "2.0.0"])
        check(">1.2.3", matches: ["1.2.4", "1.3"], rejects: ["1.2.3", "1.2"])
    }

    @Test("a side that is not numeric matches no comparison")
    func nonNumeric() {
        check(">5", matches: [], rejects: ["abc", "", nil, "5a", "5..1", "1.-2"])
        check("<>5", matches: [], rejects: ["abc", ""])
        check(">abc", matches: [], rejects: ["6", "abd"])
        check(">", matches: [], rejects: ["1", ""])
        check("<-1.2", matches: [], rejects: ["-3", "1.0"])  // negative dotted is not a number
        check(">-1", matches: [], rejects: ["1.2"])  // a negative integer against a dotted version
    }

    @Test("numbers beyond 64 bits compare by value")
    func bigNumbers() {
        check(">99999999999999999999", matches: ["100000000000000000000"], rejects: ["99999999999999999999"])
    }

    @Test("globs: * any run, ? one character, everything else literal")
    func globs() {
        check("a?c*", matches: ["abc", "abcdef", "a.c"], rejects: ["ac", "abd"])
        check("*.*", matches: ["1.2", "."], rejects: ["12"])
        check("iphone2*", matches: ["iPhone2,1"], rejects: ["iPhone3,1"])
        check("*2", matches: ["2", "12", "iPad2"], rejects: ["21"])
        check("a*b*c", matches: ["abc", "aXbYc", "abbbc", "acbc"], rejects: ["acb", "ab"])
        check("[a]*", matches: ["[a]x"], rejects: ["ax"])
        check("a?c", matches: ["a?c"], rejects: ["abc"])  // without '*' a part is plain equality
    }

    @Test("a glob against a long value does not blow up")
    func globWorstCase() {
        let value = String(repeating: "a", count: 5_000)
        #expect(!FilterRule(String(repeating: "a*", count: 50) + "b").matches(value))
    }

    @Test("a glob or a value past 256 characters matches no glob: a server's 20 KB pattern costs nothing")
    func globLimits() {
        let limit = String(repeating: "a", count: 256)
        #expect(FilterRule("*").matches(limit))
        #expect(!FilterRule("*").matches(limit + "a"))
        #expect(FilterRule("*" + String(repeating: "a", count: 254) + "b").matches(String(repeating: "a", count: 255) + "b"))
        #expect(!FilterRule("*" + String(repeating: "a", count: 20_000) + "b").matches(String(repeating: "a", count: 60_000) + "b"))
        #expect(FilterRule("!*" + String(repeating: "a", count: 300)).matches("x"), "an exclusion past the limit excludes nothing")
    }

    @Test("the comparison operators parse longest first")
    func operatorParsing() {
        #expect(FilterRule("<=5").includes == [.comparison(.lessOrEqual, "5")])
        #expect(FilterRule("<>5").includes == [.comparison(.notEqual, "5")])
        #expect(FilterRule(">=5").includes == [.comparison(.greaterOrEqual, "5")])
        #expect(FilterRule("<5").includes == [.comparison(.less, "5")])
        #expect(FilterRule("''").includes == [.empty])
        #expect(FilterRule("!''").excludes == [.empty])
        #expect(FilterRule("A b").includes == [.equals("ab")])
    }
}
