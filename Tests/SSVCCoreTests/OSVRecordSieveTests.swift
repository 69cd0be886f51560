@testable import SSVCCore
import SSVCTestSupport
import Testing

/// The byte test that lets an export's records of other packages go
/// unparsed (issue 55): it may pass over only records that cannot name
/// the package, judged against the parser and the ecosystem's own rule.
@Suite("OSV records passed over unparsed")
struct OSVRecordSieveTests {
    func record(named name: String, details: String = "") -> [UInt8] {
        Array(#"{"id":"X-1","modified":"2026-01-01T00:00:00Z","details":"\#(details)","affected":[{"package":{"ecosystem":"PyPI","name":"\#(name)"}}]}"#.utf8)
    }

    /// What parsing says: whether the record names `package` as PyPI compares names.
    func names(_ bytes: [UInt8], _ package: String) -> Bool {
        guard let root = try? JSONParser.parse(bytes) else { return true }
        return OSVRecord.namedPackages(root).contains { EcosystemOrder.samePackage($0.name, package, ecosystem: "PyPI") }
    }

    @Test("a record naming the package in another case, through escapes or with the Kelvin sign is parsed", arguments: [
        ("requests", "Requests"), ("requests", "REQUESTS"), ("requests", #"re\u0071uests"#), ("requests", #"\u0052equests"#),
        ("re-quests", "RE.QUESTS"), ("kombu", "\u{212A}ombu"), ("kombu", #"\u212Aombu"#), ("kombu", #"\u212aOMBU"#),
        ("py-yaml", "PyYAML"), ("a-b", "A_B"),
    ])
    func named(package: String, written: String) {
        let bytes = record(named: written)
        let sieve = OSVRecordSieve(package: package)
        #expect(sieve.mayName(bytes))
        if package != "py-yaml" { #expect(names(bytes, package), "the parser's reading is the one kept") }
    }

    @Test("records of other packages are passed over, escapes of other characters in their text included", arguments: [
        ("requests", "django", #"\u003cscript\u003e \u2028 \"quoted\""#), ("requests", "requestsx-no", ""), ("kombu", "celery", "K\u{2126}"),
        ("github.com/gin-gonic/gin", "github.com/gorilla/mux", "gin"),
    ])
    func passedOver(package: String, other: String, details: String) {
        let sieve = OSVRecordSieve(package: package)
        let bytes = record(named: other, details: details)
        // "requestsx-no" holds the run: parsed (the sieve errs one way), and not named.
        #expect(sieve.mayName(bytes) == other.lowercased().contains(package), "every run must be there: github, com and gin are, gonic is not")
        #expect(!names(bytes, package))
    }

    @Test("a name without a run of three letters or digits passes every record to the parser")
    func shortNames() {
        for package in ["p", "a-b", "x.y.z", "ab"] {
            #expect(OSVRecordSieve(package: package).runs.isEmpty, "\(package)")
            #expect(OSVRecordSieve(package: package).mayName(record(named: "other")))
        }
    }

    @Test("20,000 generated names: whenever the parser reads the package's name, the sieve parses the record")
    func neverWrongAgainstTheParser() {
        var random = SplitMix64(seed: 55)
        let packages = ["requests", "kombu", "py-yaml", "zope.interface", "x1-y2_z3", "kit-zope.interface"]
        // Each character of a name: as is, in the other case, escaped, a separator, or the Kelvin sign for k.
        func spelled(_ name: String) -> String {
            var out = ""
            for character in name {
                let choice = Int.random(in: 0..<10, using: &random)
                switch (choice, character) {
                case (0, _) where character.isLetter: out += character.isUppercase ? character.lowercased() : character.uppercased()
                case (1, _):
                    let hex = String(character.unicodeScalars.first!.value, radix: 16, uppercase: Bool.random(using: &random))
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                case (2, "k"), (2, "K"): out += "\u{212A}"
                case (3, "-"), (3, "."), (3, "_"): out += ["-", "_", ".", "--", "_."].randomElement(using: &random)!
                case (4, _): out += ["x", "-", "Q", "\\u0041", "é"].randomElement(using: &random)!
                default: out.append(character)
                }
            }
            return out
        }
        var namedCount = 0
        var passedCount = 0
        for _ in 0..<20_000 {
            let package = packages.randomElement(using: &random)!
            let written = spelled(packages.randomElement(using: &random)!)
            let bytes = record(named: written, details: Bool.random(using: &random) ? #"\u003c\u00e9"# : "")
            let sieve = OSVRecordSieve(package: package)
            if names(bytes, package) {
                namedCount += 1
                #expect(sieve.mayName(bytes), "\(written) names \(package), and was passed over")
            }
            if !sieve.mayName(bytes) { passedCount += 1 }
        }
        #expect(namedCount > 1_000 && passedCount > 1_000, "both kinds were tried: \(namedCount) named, \(passedCount) passed over")
    }
}
