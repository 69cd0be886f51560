import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("pep440 scheme")
struct PEP440VersionTests {
    /// PEP 440's "Summary of permitted suffixes and relative ordering", in increasing order.
    static let ladder = [
        "1.dev0", "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
        "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5",
        "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1",
    ]

    @Test("follows PEP 440's own ordering example, every pair")
    func ladderOrder() throws {
        for (i, a) in Self.ladder.enumerated() {
            for (j, b) in Self.ladder.enumerated() {
                let expected: VersionComparison = i < j ? .older : i == j ? .same : .newer
                #expect(try VersionScheme.pep440.compare(a, b) == expected, "\(a) vs \(b)")
            }
        }
    }

    @Test("orders epochs, trailing zeros, dev releases and local versions as packaging does", arguments: [
        ("1!0.1", "2.0", VersionComparison.newer),
        ("0!2.0", "2.0", .same),
        ("1.0.0", "1", .same),
        ("0.0", "0", .same),
        ("1.01", "1.1", .same),
        ("1.0.dev1", "1.0a1.dev1", .older),  // a dev release of the release itself comes before its pre-releases
        ("1.0a1.dev1", "1.0a1", .older),
        ("1.0.post1.dev1", "1.0", .newer),
        ("1.0.post1.dev1", "1.0.post1", .older),
        ("1.0rc1.post1", "1.0", .older),
        ("1.0", "1.0+0", .older),
        ("1.0+abc", "1.0+1", .older),  // in a local version, text before numbers
        ("1.0+1.abc", "1.0+1", .newer),  // and a longer one after its prefix
        ("1.0+ABC-1", "1.0+abc.1", .same),
        ("1.0+010", "1.0+9", .newer),
        ("1.0+a10", "1.0+a9", .older),  // letters and digits together compare as text
        ("99999999999999999999999.1", "99999999999999999999998.9", .newer),
        ("1.0a99999999999999999999999", "1.0b0", .older),
    ])
    func order(lhs: String, rhs: String, expected: VersionComparison) throws {
        #expect(try VersionScheme.pep440.compare(lhs, rhs) == expected)
        #expect(try VersionScheme.pep440.compare(rhs, lhs) == expected.reversed)
    }

    @Test("normalises as PEP 440's examples and packaging's str(Version) do", arguments: [
        ("1.1RC1", "1.1rc1"), ("00", "0"), ("09000", "9000"), ("1.0+foo0100", "1.0+foo0100"),
        ("1.1.a1", "1.1a1"), ("1.1-a1", "1.1a1"), ("1.1_a1", "1.1a1"), ("1.0a.1", "1.0a1"),
        ("1.1alpha1", "1.1a1"), ("1.1beta2", "1.1b2"), ("1.1c3", "1.1rc3"), ("1.1pre4", "1.1rc4"), ("1.1preview5", "1.1rc5"),
        ("1.2a", "1.2a0"), ("1.2-post2", "1.2.post2"), ("1.2post2", "1.2.post2"), ("1.2.post-2", "1.2.post2"),
        ("1.0-r4", "1.0.post4"), ("1.0-rev4", "1.0.post4"), ("1.2.post", "1.2.post0"), ("1.0-1", "1.0.post1"),
        ("1.2-dev2", "1.2.dev2"), ("1.2dev2", "1.2.dev2"), ("1.2.dev", "1.2.dev0"),
        ("1.0+ubuntu-1", "1.0+ubuntu.1"), ("1.0+ubuntu_1", "1.0+ubuntu.1"), ("1.0+0001.AbC", "1.0+1.abc"),
        ("v1.0", "1.0"), ("V1.0", "1.0"), ("  1.0\n", "1.0"), ("\u{A0}1.0\u{2003}", "1.0"),
        ("1!2.0", "1!2.0"), ("0!2.0", "2.0"), ("00!01.00a00-00.dev00+00.A-b_C", "1.0a0.post0.dev0+0.a.b.c"),
        ("1.0.0", "1.0.0"), ("1a.-1", "1a0.post1"), ("1.post..dev", "1.post0.dev0"), ("1.0-1.dev", "1.0.post1.dev0"),
    ])
    func normalized(text: String, expected: String) throws {
        #expect(try VersionScheme.pep440.normalized(text) == expected)
        #expect(try VersionScheme.pep440.compare(text, expected) == .same)
    }

    @Test("refuses what packaging refuses, saying what is wrong", arguments: [
        ("", "empty"),
        (" \t", "nothing but white space"),
        ("french toast", "does not begin with a release number"),
        ("1.0é", "holds U+00E9, which is not ASCII"),
        ("1!", "no release number after '1!'"),
        ("v", "no release number after 'v'"),
        ("!1", "does not begin with a release number"),
        ("1.0+", "nothing after '+' (the local version)"),
        ("1.0+a..b", "an empty segment in the local version 'a..b'"),
        ("1.0+a.", "an empty segment in the local version 'a.'"),
        ("1.0+a+b", "the local version 'a+b' may hold only letters and digits, parted by '.', '-' or '_'"),
        ("1.0.dev1.post1", "unexpected '.post1' after '1.0.dev1': a release may be followed only by a pre-, post- and dev-release and a +local version, in that order"),
        ("1.0-", "unexpected '-' after '1.0': a release may be followed only by a pre-, post- and dev-release and a +local version, in that order"),
        (String(repeating: "9", count: 4301), "a number of 4301 digits, more than Python reads (4300)"),
    ])
    func refuses(text: String, reason: String) {
        let error = #expect(throws: VersionError.self) { try VersionScheme.pep440.validate(text) }
        #expect(error?.reason == reason)
        #expect(error?.scheme == .pep440)
    }

    @Test("refuses the rest of packaging's refusals", arguments: [
        "1.0post1a1", "1.0a1a2", "1.0_1", "1.0 beta", "1.0.", "1..0", ".1", "1.0+-a", "1.0+é", "1.0.post1.post2", "1.0-1-1",
        "1.0a.b", "vv1", "v 1", "1.0+\u{212A}", "1.0\u{0660}", "1,0",
    ])
    func refusesMore(text: String) {
        #expect(throws: VersionError.self) { try VersionScheme.pep440.validate(text) }
    }

    @Test("reads 4300-digit numbers, as Python does, and a long text in time linear in its length")
    func longNumbers() throws {
        let long = String(repeating: "7", count: 4300)
        #expect(try VersionScheme.pep440.normalized(long + "!1+" + long) == long + "!1+" + long)
        // Python counts leading zeros too.
        #expect(throws: VersionError.self) { try VersionScheme.pep440.validate("0" + long) }
        let parts = String(repeating: "1.", count: 50_000) + "1"
        #expect(try VersionScheme.pep440.compare(parts, parts + ".0") == .same)
        #expect(throws: VersionError.self) { try VersionScheme.pep440.validate(parts + "+" + String(repeating: "a.", count: 50_000)) }
    }
}
