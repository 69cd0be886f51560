import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

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
