import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("LinearPattern: what it matches and captures") struct LinearPatternBehaviourTests {
    @Test func releaseTags() throws {
        let tag = #"^billing-v((\d+\.?)+)$"#
        #expect(try strings(tag, "billing-v1.2.3") == ["billing-v1.2.3", "1.2.3", "3"])
        #expect(try strings(tag, "billing-v10.20.") == ["billing-v10.20.", "10.20.", "20."])
        #expect(try strings(tag, "billing-v") == nil)
        #expect(try strings(tag, "billing-v1..2") == nil)
        #expect(try strings(tag, "xbilling-v1") == nil)

        let version = #"^v?(\d+(?:\.\d+)*)$"#
        #expect(try strings(version, "v1.22.333") == ["v1.22.333", "1.22.333"])
        #expect(try strings(version, "7") == ["7", "7"])
        #expect(try strings(version, "1.2.") == nil)
        #expect(try strings(version, "v") == nil)
        #expect(try LinearPattern(version).captureCount == 1)
        for (pattern, text) in [(tag, "billing-v1.2.3"), (version, "v1.22.333")] {
            #expect(try linear(pattern, text) == reference(pattern, text))
        }
    }

    @Test func greedyAndLazy() throws {
        #expect(try strings("a+", "aaa") == ["aaa"])
        #expect(try strings("a+?", "aaa") == ["a"])
        #expect(try strings("a*?", "aaa") == [""])
        #expect(try strings("a??b", "ab") == ["ab"])
        #expect(try strings("a{2,3}", "aaaa") == ["aaa"])
        #expect(try strings("a{2,3}?", "aaaa") == ["aa"])
        #expect(try strings("a{2,}?", "aaaa") == ["aa"])
        #expect(try strings("<(.+)>", "<a><b>") == ["<a><b>", "a><b"])
        #expect(try strings("<(.+?)>", "<a><b>") == ["<a>", "a"])
        #expect(try strings("(a+)(a*)", "aaa") == ["aaa", "aaa", ""])
        #expect(try strings("(a+?)(a*)", "aaa") == ["aaa", "a", "aa"])
        #expect(try strings("x{0}y", "y") == ["y"])
    }

    @Test func alternationPriority() throws {
        #expect(try strings("(a|ab)(c|bcd)", "abcd") == ["abcd", "a", "bcd"])
        #expect(try strings("(ab|a)(c|bcd)", "abcd") == ["abc", "ab", "c"])
        #expect(try strings("a|ab", "ab") == ["a"])
        #expect(try strings("(a)|b", "b") == ["b", nil])
        #expect(try strings("(?<first>x)|(?<second>y)", "y") == ["y", nil, "y"])
        #expect(try strings("(a|b)*c", "abac") == ["abac", "a"])
    }

    @Test func anchors() throws {
        #expect(try strings("^a", "ba") == nil)
        #expect(try strings("a$", "ab") == nil)
        #expect(try strings("a$", "ba") == ["a"])
        #expect(try strings("a$", "a\n") == nil)          // `$` is the very end only
        #expect(try strings(#"\Aab\z"#, "ab") == ["ab"])
        #expect(try strings(#"\Aab\z"#, "abc") == nil)
        #expect(try strings(#"\bfoo\b"#, "a foo b") == ["foo"])
        #expect(try strings(#"\bfoo\b"#, "afoo") == nil)
        #expect(try strings(#"\Boo\b"#, "foo") == ["oo"])
        #expect(try strings(#"\b"#, "") == nil)
        #expect(try strings(#"\B"#, "") == [""])
        #expect(try strings("^$", "") == [""])
        #expect(try strings("^", "abc") == [""])
    }

    @Test func classesAndEscapes() throws {
        #expect(try strings("[^a-z0-9_]+", "abc-+=x") == ["-+="])
        #expect(try strings("[]a]+", "x]a]") == ["]a]"])
        #expect(try strings("[^]a]+", "]a-b") == ["-b"])
        #expect(try strings("[a-]+", "b-a-") == ["-a-"])
        #expect(try strings(#"[\d.]+"#, "v1.2.3-rc") == ["1.2.3"])
        #expect(try strings(#"[\w]+"#, "--ab_9--") == ["ab_9"])
        #expect(try strings(#"\s+"#, "a \t\r\nb") == [" \t\r\n"])
        #expect(try strings(#"\S+"#, "  ab ") == ["ab"])
        #expect(try strings(#"\D+"#, "12ab34") == ["ab"])
        #expect(try strings(#"\W"#, "ab.c") == ["."])
        #expect(try strings(#"\x41\u{42}\."#, "xAB.") == ["AB."])
        #expect(try strings(#"\u{1F600}+"#, "a😀😀b") == ["😀😀"])
        #expect(try strings(#"[\u{1F600}-\u{1F64F}]"#, "a😃") == ["😃"])
        #expect(try strings(#"\(\)\[\]\{\}\*\+\?\|\^\$\\\/"#, #"()[]{}*+?|^$\/"#) == [#"()[]{}*+?|^$\/"#])
        #expect(try strings("a}]", "a}]") == ["a}]"])
        #expect(try strings(#"\t\n\r"#, "\t\n\r") == ["\t\n\r"])
        #expect(try strings(".", "\n") == nil)
        #expect(try strings(".+", "\r\r") == ["\r\r"])
        #expect(try strings(#"\d"#, "٣") == nil)         // ASCII digits only
    }

    @Test func edgeCases() throws {
        #expect(try strings("", "") == [""])
        #expect(try strings("", "abc") == [""])
        #expect(try strings("()", "") == ["", ""])
        #expect(try strings("(|)", "x") == ["", ""])
        #expect(try strings("a|", "b") == [""])
        #expect(try strings("x", "") == nil)
        #expect(try LinearPattern("(a)(?:b)(?<n>c)((d))").captureCount == 4)
        #expect(try LinearPattern("").pattern == "")

        // Unicode scalars, not Characters: "é" written as e + U+0301 is two scalars.
        let parts = try #require(LinearPattern("(.)(.)").firstMatch(in: "e\u{301}!"))
        #expect(parts.map { $0.map { Array($0.unicodeScalars) } } ==
                [["e", "\u{301}"], ["e"], ["\u{301}"]])
        #expect(try strings("é+", "ééx") == ["éé"])
        #expect(try strings("b", "😀b") == ["b"])

        // Substrings point into the original text.
        let text = "release billing-v4.5"
        let match = try #require(LinearPattern(#"v(\d+)\.(\d+)"#).firstMatch(in: text))
        #expect(match[1].map { text.distance(from: text.startIndex, to: $0.startIndex) } == 17)
        #expect(match[1].map(String.init) == "4")

        // Bounds at the limits are accepted.
        #expect(try LinearPattern("a{1000}").firstMatch(in: String(repeating: "a", count: 1000)) != nil)
        let nested = String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100)
        #expect(try LinearPattern(nested).firstMatch(in: "a")?.count == 101)
    }

    @Test func largeText() async throws {
        let big = String(repeating: "ab1.-", count: 40_000) + "9.99"
        // Seconds under ThreadSanitizer: off the pool.
        let found = try await offPool { try [#"(\d+)\.(\d+)$"#, #"^(\w|[.-])*$"#, "x"].map { try strings($0, big) } }
        #expect(found[0] == ["9.99", "9", "99"])
        #expect(found[1]?.first == big)
        #expect(found[2] == nil)
    }
}
