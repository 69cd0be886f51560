import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

/// The pep440 scheme against Python's own `packaging`, on generated pairs.
@Suite("pep440 scheme: agreement with Python's packaging")
struct PEP440AgreementTests {
    /// A version before it is spelled: numbers as digit strings.
    struct Parts {
        var epoch: String?
        var release: [String]
        var pre: (kind: Int, number: String)?
        var post: String?
        var dev: String?
        var local: [String]?
    }

    /// Generated versions: every part, spelled in the many ways packaging
    /// reads (case, separators, aliases, implicit numbers, leading zeros,
    /// white space); each pair either one version spelled twice, or a
    /// version and a near neighbour, and some spellings broken.
    struct Corpus {
        var random = SplitMix64(seed: 0x50_4550_3434)

        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &random)! }

        mutating func number() -> String {
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<6: "0"
            case 6..<16: String(Int.random(in: 1...12, using: &random))
            case 16..<19: String(Int.random(in: 13...99_999, using: &random))
            default: String(Int.random(in: 1...9, using: &random)) + String((0..<Int.random(in: 18...30, using: &random)).map { _ in pick(Array("0123456789")) })
            }
        }

        mutating func localSegment() -> String {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: number()
            case 1: pick(["abc", "ubuntu", "dev", "a", "z", "post", "rc1", "1a", "b2", "0x"])
            default: String((0..<Int.random(in: 1...4, using: &random)).map { _ in pick(Array("ab1z09")) })
            }
        }

        mutating func parts() -> Parts {
            Parts(
                epoch: chance(15) ? number() : nil,
                release: (0..<Int.random(in: 1...4, using: &random)).map { _ in number() },
                pre: chance(35) ? (Int.random(in: 0...2, using: &random), number()) : nil,
                post: chance(25) ? number() : nil,
                dev: chance(25) ? number() : nil,
                local: chance(20) ? (0..<Int.random(in: 1...3, using: &random)).map { _ in localSegment() } : nil
            )
        }

        /// A neighbour of `parts`: the same, or one part changed.
        mutating func neighbour(_ parts: Parts) -> Parts {
            var next = parts
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<4: break
            case 4: next.epoch = chance(50) ? nil : number()
            case 5:
                let index = Int.random(in: 0..<next.release.count, using: &random)
                next.release[index] = number()
            case 6: if chance(50) { next.release.append("0") } else if next.release.count > 1 { next.release.removeLast() }
            case 7: next.pre = chance(30) ? nil : (Int.random(in: 0...2, using: &random), next.pre?.number ?? number())
            case 8: next.post = chance(30) ? nil : number()
            case 9: next.dev = chance(30) ? nil : number()
            case 10: next.local = chance(30) ? nil : (next.local ?? []) + [localSegment()]
            default: if next.local != nil { next.local![0] = localSegment() } else { next.local = [localSegment()] }
            }
            return next
        }

        mutating func separator() -> String { pick(["", "", ".", "-", "_"]) }

        mutating func spelled(_ digits: String) -> String { (chance(15) ? String(repeating: "0", count: Int.random(in: 1...2, using: &random)) : "") + digits }

        /// Spells `word` with a random case for each letter, now and then.
        mutating func cased(_ word: String) -> String {
            guard chance(20) else { return word }
            return String(word.map { chance(50) ? Character($0.uppercased()) : $0 })
        }

        mutating func spell(_ parts: Parts) -> String {
            var text = chance(8) ? pick([" ", "\t", "\n", "\u{A0}", "\u{2003}", "\u{1C}", "\u{85}", "  "]) : ""
            if chance(12) { text += pick(["v", "V"]) }
            if let epoch = parts.epoch { text += spelled(epoch) + "!" } else if chance(5) { text += "0!" }
            text += parts.release.map { spelled($0) }.joined(separator: ".")
            if let pre = parts.pre {
                let words = [["a", "alpha"], ["b", "beta"], ["rc", "c", "pre", "preview"]][pre.kind]
                text += separator() + cased(pick(words)) + separator()
                if pre.number != "0" || chance(50) { text += spelled(pre.number) }
            }
            if let post = parts.post {
                if chance(25) {
                    text += "-" + spelled(post)
                } else {
                    text += separator() + cased(pick(["post", "rev", "r"])) + separator()
                    if post != "0" || chance(50) { text += spelled(post) }
                }
            }
            if let dev = parts.dev {
                text += separator() + cased("dev") + separator()
                if dev != "0" || chance(50) { text += spelled(dev) }
            }
            if let local = parts.local {
                text += "+" + cased(local[0])
                for segment in local.dropFirst() { text += pick([".", "-", "_"]) + cased(segment) }
            }
            if chance(8) { text += pick([" ", "\n", "\u{3000}", "\u{2028}", "\r\n"]) }
            return chance(7) ? broken(text) : text
        }

        /// `text` with a character put in, taken out or doubled: often no longer a version.
        mutating func broken(_ text: String) -> String {
            var characters = Array(text)
            let index = Int.random(in: 0...characters.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: characters.insert(pick(Array("._-+!vab é0")), at: index)
            case 1: if index < characters.count { characters.remove(at: index) }
            case 2: if index < characters.count { characters.insert(characters[index], at: index) }
            default: characters += pick(["+", ".", "-", "!", "+a..b", "post1", "a1", ".dev", "ß"])
            }
            return String(characters)
        }

        mutating func pairs(count: Int) -> [(String, String)] {
            (0..<count).map { _ in
                let first = parts()
                let second = chance(15) ? parts() : neighbour(first)
                return (spell(first), spell(second))
            }
        }
    }

    /// What packaging says of a pair: the order (nil when either is no
    /// version) and each one's canonical text (nil for no version).
    struct Answer: Equatable {
        var order: String
        var left: String?
        var right: String?
    }

    /// Whether a missing Python or packaging is a failure rather than a skip.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pep440_compare.py").path

    /// Whether python3 has packaging 26 or later (asked for its version: a
    /// bare `import packaging` can find another folder of that name).
    static func packagingIsAvailable() async -> Bool {
        let check = "import packaging, sys; sys.exit(int(packaging.__version__.split('.')[0]) < 26)"
        return (try? await Command.run(["/usr/bin/env", "python3", "-c", check]).status) == 0
    }

    /// packaging's answers for `pairs`, asked of one Python process; the
    /// pairs go in on standard input, one JSON array a line.
    static func askPackaging(_ pairs: [(String, String)]) async throws -> [Answer] {
        let encoder = JSONEncoder()
        var lines = Data()
        for (a, b) in pairs {
            lines.append(try encoder.encode([a, b]))
            lines.append(0x0A)
        }
        let result = try await Command.run(["/usr/bin/env", "python3", script], input: lines)
        var answers = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let header = answers.isEmpty ? "" : String(answers.removeFirst())
        let major = header.wholeMatch(of: /packaging (\d+)\..*/).flatMap { Int($0.1) }
        guard result.status == 0, let major, major >= 26 else {
            let found = header.isEmpty ? result.standardError.split(separator: "\n").last.map(String.init) ?? "no answer" : header
            throw OracleMissing(description: "python3 with packaging 26 or later is needed (make test-deps installs it); found: \(found)")
        }
        if answers.last == "" { answers.removeLast() }
        return answers.map { line in
            let fields = line.split(separator: " ").map(String.init)
            func canonical(_ index: Int) -> String? { index < fields.count && fields[index] != "-" ? fields[index] : nil }
            return Answer(order: fields.first ?? "", left: canonical(1), right: canonical(2))
        }
    }

    struct OracleMissing: Error, CustomStringConvertible {
        let description: String
    }

    /// ssvc's answer for a pair, in the same form.
    static func ours(_ a: String, _ b: String) -> Answer {
        let left = try? VersionScheme.pep440.normalized(a)
        let right = try? VersionScheme.pep440.normalized(b)
        let order = (try? VersionScheme.pep440.compare(a, b)).map { "\($0)" } ?? "invalid"
        return Answer(order: order, left: left, right: right)
    }

    @Test("agrees with Python's packaging on 4,000 generated pairs: validity, order and canonical text",
          .enabled("python3 with packaging 26 or later is missing (make test-deps)") { if PEP440AgreementTests.isRequired { return true }; return await PEP440AgreementTests.packagingIsAvailable() })
    func agreesWithPackaging() async throws {
        var corpus = Corpus()
        let pairs = corpus.pairs(count: 4_000)
        let answers = try await Self.askPackaging(pairs)
        try #require(answers.count == pairs.count, "packaging answered \(answers.count) of \(pairs.count)")
        var disagreements = 0
        for ((a, b), theirs) in zip(pairs, answers) {
            let ours = Self.ours(a, b)
            if ours != theirs {
                disagreements += 1
                Issue.record("\(a.debugDescription) vs \(b.debugDescription): packaging says \(theirs), ssvc says \(ours)")
            }
            if disagreements > 10 { break }
        }
        let outcomes = Dictionary(grouping: answers, by: \.order).mapValues(\.count)
        #expect(Set(outcomes.keys) == ["older", "same", "newer", "invalid"], "the corpus should hold every outcome: \(outcomes)")
        // Enough of each that every rule is reached many times, the spellings of one version included.
        #expect(outcomes.values.allSatisfy { $0 >= 200 }, "\(outcomes)")
        let respelled = zip(pairs, answers).filter { $0.1.order == "same" && $0.0.0 != $0.0.1 }.count
        #expect(respelled >= 500, "only \(respelled) pairs were one version spelled two ways")
        print("pep440: \(pairs.count - disagreements) of \(pairs.count) pairs agree with packaging \(outcomes)")
    }
}
