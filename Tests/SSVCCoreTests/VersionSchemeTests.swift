import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("dotted scheme")
struct DottedSchemeTests {
    @Test("orders as the spec says", arguments: [
        ("2.1", "2.1.0", VersionComparison.same),
        ("2.31", "2.4", .newer),
        ("1.10", "1.9", .newer),
        ("1.0", "1.0.1", .older),
        ("1.01", "1.1", .same),
        ("1.a", "1.b", .older),
        ("1.2", "1.10a", .newer),  // "2" against "10a" is text: "2" > "1"
        ("99999999999999999999.1", "99999999999999999998.9", .newer),
        ("1..2", "1.0.2", .same),
        (" 1.2 ", "1.2", .same),
        ("", "0", .same),
    ])
    func order(lhs: String, rhs: String, expected: VersionComparison) throws {
        #expect(try VersionScheme.dotted.compare(lhs, rhs) == expected)
        #expect(try VersionScheme.dotted.compare(rhs, lhs) == expected.reversed)
    }
}

@Suite("what is a version at all")
struct VersionValidityTests {
    @Test("under dotted and nsnumeric, text that does not begin with a digit (after an optional v) is no version", arguments: [
        "", "stable", "release-candidate", "x", "v", "vv1", "myagent 1.0", "banana", " 1.0", "-1", "V1.0",
    ])
    func notVersions(text: String) {
        for scheme in [VersionScheme.dotted, .nsnumeric] {
            #expect(throws: VersionError.self, "\(scheme) \(text)") { try scheme.validate(text) }
        }
    }

    @Test("a leading v is dropped where the scheme allows it, and kept by debian", arguments: [
        (VersionScheme.dotted, "v1.0", "1.0"), (.dotted, "2.4.1", "2.4.1"), (.dotted, "1.0 beta", "1.0 beta"), (.nsnumeric, "v10.3", "10.3"),
        (.semver, "v1.2.3", "1.2.3"), (.semver, "1.2.3-rc.1", "1.2.3-rc.1"), (.debian, "1:2.0-1", "1:2.0-1"),
    ])
    func normalized(scheme: VersionScheme, text: String, expected: String) throws {
        #expect(try scheme.normalized(text) == expected)
    }

    @Test("an empty text is no version in any scheme, dpkg's 'no version' included")
    func empty() {
        for scheme in VersionScheme.allCases {
            #expect(throws: VersionError.self, "\(scheme)") { try scheme.validate("") }
        }
    }

    @Test("v1.10 and 1.9 compare as 1.10 and 1.9 under dotted: the v is not text that sorts")
    func vCompares() throws {
        #expect(try VersionScheme.dotted.compare("v1.10", "1.9") == .newer)
        #expect(try VersionScheme.nsnumeric.compare("v2", "10") == .older)
    }
}

@Suite("semver scheme")
struct SemverSchemeTests {
    /// semver.org's own precedence example, in increasing order.
    static let ladder = [
        "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
        "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0", "2.1.0", "2.1.1",
        "18446744073709551616.0.0",
    ]

    @Test("follows semver.org's precedence, every pair")
    func ladderOrder() throws {
        for (i, a) in Self.ladder.enumerated() {
            for (j, b) in Self.ladder.enumerated() {
                let expected: VersionComparison = i < j ? .older : i == j ? .same : .newer
                #expect(try VersionScheme.semver.compare(a, b) == expected, "\(a) vs \(b)")
            }
        }
    }

    @Test("ignores build metadata and accepts a leading v")
    func buildMetadata() throws {
        #expect(try VersionScheme.semver.compare("1.0.0+20130313144700", "1.0.0+exp.sha.5114f85") == .same)
        #expect(try VersionScheme.semver.compare("v1.2.3", "1.2.3") == .same)
        #expect(try VersionScheme.semver.compare("1.0.0-99999999999999999999", "1.0.0-100000000000000000000") == .older)
    }

    @Test("rejects what is not a semantic version", arguments: [
        "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-", "1.2.3-01", "1.2.3-a..b", "1.2.3+", "1.2.3+a_b", "", "1.2.x", "1.2.3-ä",
    ])
    func rejects(version: String) {
        #expect(throws: VersionError.self) { try VersionScheme.semver.validate(version) }
    }
}

@Suite("debian scheme")
struct DebianSchemeTests {
    @Test("orders the classic cases", arguments: [
        ("1.0~rc1", "1.0", VersionComparison.older),
        ("1.0", "1.0-0", .same),
        ("1:0.1", "2.0", .newer),
        ("1.0a", "1.0+", .older),
        ("1.0", "1.0a", .older),
        ("1.0~~", "1.0~", .older),
        ("2.30", "2.4", .newer),
        ("1.2-3-4", "1.2-3", .newer),
        ("", "0", .older),
        ("", "~", .older),
        ("<unknown>", "", .same),
        ("abc", "1", .newer),
    ])
    func order(lhs: String, rhs: String, expected: VersionComparison) throws {
        #expect(try VersionScheme.debian.compare(lhs, rhs) == expected)
        #expect(try VersionScheme.debian.compare(rhs, lhs) == expected.reversed)
    }

    @Test("rejects what dpkg rejects", arguments: [
        ("1:", "nothing after colon in version number"),
        ("1.0-", "revision number is empty"),
        ("a:1", "epoch in version is not number"),
        (":1", "epoch in version is empty"),
        ("1 2", "version string has embedded spaces"),
        ("99999999999:1", "epoch in version is too big"),
        ("-1", "version number is empty"),
    ])
    func rejects(version: String, reason: String) {
        let error = #expect(throws: VersionError.self) { try VersionScheme.debian.validate(version) }
        #expect(error?.reason == reason)
    }

    /// Random Debian versions: epochs, `~`, `+`, letters, revisions, and many
    /// near-twins so that equal and adjacent pairs are common.
    static func corpus(count: Int) -> [(String, String)] {
        var random = SplitMix64(seed: 0x55_5643)
        func pick(_ characters: String) -> Character { characters.randomElement(using: &random)! }
        func segment() -> String {
            var text = ""
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5: text.append(pick("0123456789"))
                case 5..<7: text.append(pick("abzAZ"))
                case 7: text.append("~")
                case 8: text.append("+")
                default: text.append(".")
                }
            }
            return text
        }
        func version() -> String {
            var text = ""
            if Int.random(in: 0..<5, using: &random) == 0 { text += "\(Int.random(in: 0...3, using: &random)):" }
            text += String(pick("0123456789")) + segment()
            if Bool.random(using: &random) { text += "-" + String(pick("0123456789")) + segment() }
            return text
        }
        func mutate(_ text: String) -> String {
            var characters = Array(text)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return text
            case 1: return text + "~" + segment()
            case 2: return text + "." + String(pick("0123456789"))
            case 3:
                let index = Int.random(in: 0..<characters.count, using: &random)
                if characters[index].isNumber { characters[index] = pick("0123456789") }
                return String(characters)
            case 4: return text.replacingOccurrences(of: ".", with: ".0", options: [], range: nil)
            default: return text + "+" + segment()
            }
        }
        return (0..<count).map { _ in
            let first = version()
            return (first, Int.random(in: 0..<3, using: &random) == 0 ? version() : mutate(first))
        }
    }

    @Test("only blanks are trimmed or refused, as dpkg does; a line feed is one more character (found by make fuzz)")
    func blanks() async throws {
        let dpkg = try #require(["/usr/bin/dpkg", "/bin/dpkg"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let pairs = [("1", "\t1 "), ("1", "\n0.10"), ("1\u{1}", "\n0.10"), ("1\r", "1")]
        for ((a, b), answer) in zip(pairs, try await Self.askDpkgArguments(dpkg, pairs)) {
            #expect(try VersionScheme.debian.compare(a, b) == answer, "\(a.debugDescription) vs \(b.debugDescription)")
        }
        #expect(throws: VersionError.self) { try VersionScheme.debian.compare("1\t2", "1") }
        // Exactly "" or <unknown> is dpkg's "no version"; blanks alone are refused.
        #expect(try VersionScheme.debian.compare("1", "") == .newer)
        #expect(throws: VersionError.self) { try VersionScheme.debian.compare("1", " ") }
        let unknown = try await Self.askDpkgArguments(dpkg, [(" <unknown>", "1")])
        #expect(unknown == [try VersionScheme.debian.compare(" <unknown>", "1")])
    }

    @Test("a byte past ASCII weighs as dpkg's signed char on amd64: between letters and punctuation (found by make fuzz)")
    func highBytes() async throws {
        let high = String(decoding: [0x32, 0xA4, 0x35, 0x35], as: UTF8.self)
        let answers = try await Self.askDpkg(try #require(["/usr/bin/dpkg", "/bin/dpkg"].first { FileManager.default.isExecutableFile(atPath: $0) }),
                                       [(high, "2.3"), ("1.0\u{e9}", "1.0z"), ("1.0\u{e9}", "1.0.")])
        try #require(answers.count == 3, "dpkg answered \(answers.count) of 3")
        for ((a, b), answer) in zip([(high, "2.3"), ("1.0\u{e9}", "1.0z"), ("1.0\u{e9}", "1.0.")], answers) {
            #expect(try VersionScheme.debian.compare(a, b) == answer, "\(a) vs \(b)")
        }
        #if arch(x86_64)
        #expect(answers.first == .older, "U+FFFD's first byte weighs less than '.' on amd64")
        #endif
    }

    @Test("agrees with dpkg --compare-versions on 2,500 generated pairs")
    func agreesWithDpkg() async throws {
        let dpkg = try #require(
            ["/usr/bin/dpkg", "/bin/dpkg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "dpkg is needed to check the debian scheme"
        )
        let pairs = Self.corpus(count: 2_500)
        let answers = try await Self.askDpkg(dpkg, pairs)
        try #require(answers.count == pairs.count)
        var disagreements = 0
        for ((a, b), answer) in zip(pairs, answers) {
            let ours = try VersionScheme.debian.compare(a, b)
            if ours != answer {
                disagreements += 1
                Issue.record("\(a) vs \(b): dpkg says \(answer), ssvc says \(ours)")
            }
            if disagreements > 10 { break }
        }
        #expect(Set(answers.map { "\($0)" }).count == 3, "the corpus should hold all three outcomes")
    }

    /// dpkg's answer for each pair, with the versions passed as they are
    /// (a shell's `read` would eat their blanks and line feeds).
    static func askDpkgArguments(_ dpkg: String, _ pairs: [(String, String)]) async throws -> [VersionComparison] {
        var answers: [VersionComparison] = []
        for (a, b) in pairs {
            func holds(_ relation: String) async throws -> Bool {
                try await Command.run([dpkg, "--compare-versions", "--", a, relation, b]).status == 0
            }
            answers.append(try await holds("lt") ? .older : (try await holds("eq") ? .same : .newer))
        }
        return answers
    }

    /// One shell runs dpkg for every pair: far cheaper than a process per pair from here.
    static func askDpkg(_ dpkg: String, _ pairs: [(String, String)]) async throws -> [VersionComparison] {
        let script = """
            while IFS=' ' read -r a b; do
              if \(dpkg) --compare-versions "$a" lt "$b"; then echo older
              elif \(dpkg) --compare-versions "$a" eq "$b"; then echo same
              else echo newer; fi
            done
            """
        let text = pairs.map { "\($0) \($1)\n" }.joined()
        let result = try await Command.run(["/bin/bash", "-c", script], input: Data(text.utf8))
        return result.standardOutput.split(separator: "\n").map {
            switch $0 {
            case "older": .older
            case "same": .same
            default: .newer
            }
        }
    }
}

@Suite("nsnumeric scheme")
struct NumericSchemeTests {
    @Test("orders as Foundation's numeric compare does", arguments: [
        ("1.10", "1.9", VersionComparison.newer),
        ("a01", "a1", .same),
        ("1", "1.0", .older),
        ("x09y", "x9z", .older),
        ("1.2b", "1.2a", .newer),
        ("a", "B", .newer),
    ])
    func order(lhs: String, rhs: String, expected: VersionComparison) throws {
        #expect(try VersionScheme.nsnumeric.compare(lhs, rhs) == expected)
    }

    @Test("agrees with Foundation's compare(_:options: .numeric) on 20,000 generated pairs")
    func agreesWithFoundation() throws {
        var random = SplitMix64(seed: 0x4E53)
        func text() -> String {
            String((0..<Int.random(in: 0...8, using: &random)).map { _ in
                "000123456789..-abAZ~ ".randomElement(using: &random)!
            })
        }
        var disagreements = 0
        for _ in 0..<20_000 {
            let a = text()
            let b = Bool.random(using: &random) ? text() : a + text()
            let expected: VersionComparison = switch a.compare(b, options: .numeric) {
            case .orderedAscending: .older
            case .orderedSame: .same
            case .orderedDescending: .newer
            }
            let ours = try VersionScheme.nsnumeric.compare(a, b)
            if ours != expected {
                disagreements += 1
                Issue.record("'\(a)' vs '\(b)': Foundation says \(expected), ssvc says \(ours)")
            }
            if disagreements > 10 { break }
        }
    }
}

@Suite("NumVersion packing")
struct NumVersionTests {
    @Test("packs keys that fit", arguments: [
        ("1.0", UInt64(16_809_984)), ("1.0.4", 17_072_128), ("1.1", 17_858_560),
        ("10.2.3", 270_761_984), ("99.15.15", 0x99FF_8000),
    ])
    func packs(key: String, number: UInt64) {
        #expect(NumVersion.pack(key) == number)
    }

    @Test("refuses keys that do not fit", arguments: ["1", "100.0", "1.16", "1.0.16", "1.0.0.0", "1.a", "", "1.", "-1.0", " 1.0"])
    func refuses(key: String) {
        #expect(NumVersion.pack(key) == nil)
    }

    @Test("a configured number wins over the packed one")
    func configuredWins() {
        #expect(RunningVersion(key: "1.0").number == 16_809_984)
        #expect(RunningVersion(key: "1.0", configuredNumber: 0).number == 0)
        #expect(RunningVersion(key: "1.0-beta").number == nil)
    }
}
