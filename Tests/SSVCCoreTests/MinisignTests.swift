import Foundation
import SSVCCore
import Testing

/// Made with Debian's minisign 0.11: `minisign -G -W`, then `minisign -S`
/// (prehashed, the default) with a trusted comment, and `minisign -S -l`
/// (legacy: the document itself signed).
private enum Fixture {
    static let publicKeyFile = """
        untrusted comment: minisign public key 475416EDBA99E22F
        RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw

        """
    static let prehashed = """
        untrusted comment: signature from minisign secret key
        RUQv4pm67RZURyKPuZpUjIW6izpLhNmL0X4tgd7zqDs+kG7zZYt4y0CcLrozSDV1+i9gVEfroyqv0Pu1708rFUO8IlYMTE+BJQo=
        trusted comment: timestamp:1763900000\tfile:doc.json\thashed
        h451LP5CAauCdXiJOn/HllJJ25YD3G+DF1v3Q4iqYPKO6QZWMBdKrVVblVYrKeZEdGlShapnRhRPfAAziTY/AA==

        """
    static let legacy = """
        untrusted comment: signature from minisign secret key
        RWQv4pm67RZUR9ffHVNgyakRK07MEhGp8vvdIJHm0ao05aJ8+QXQVgPeanBzkKYvMDMML6+n+rfK/qfEUGdxLUwe6/op/lvRFw0=
        trusted comment: timestamp:1795434171\tfile:doc.json
        ZSFTUjltdK+ct4Xzqz7ScjJZTdJ5WR8cu9W66S9PPC0yK/fJW9zlBWabCLJ077jXGlPv2/JSL0XXV8FpTE27Aw==

        """

    /// `text` with line `index` (0-based) replaced.
    static func replacing(line index: Int, in text: String, with line: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[index] = line
        return lines.joined(separator: "\n")
    }
}

@Suite("minisign keys and signatures, parsed as minisign writes them")
struct MinisignTests {
    @Test("a public key from its base64 line or its whole file; the key id as minisign prints it")
    func publicKey() throws {
        let key = try Minisign.PublicKey(parsing: Fixture.publicKeyFile)
        #expect(key.keyID.description == "475416EDBA99E22F")
        #expect(key.key.count == 32)
        #expect(try Minisign.PublicKey(parsing: "RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw") == key)
    }

    @Test("what is not a public key says so", arguments: [
        ("RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4V", "is not a minisign public key"),
        ("hello", "is not a minisign public key"),
        (Data([UInt8(ascii: "S"), UInt8(ascii: "c")] + [UInt8](repeating: 1, count: 40)).base64EncodedString(), "not an Ed25519 minisign key"),
    ])
    func badPublicKey(text: String, problem: String) {
        let error = #expect(throws: Minisign.Invalid.self) { try Minisign.PublicKey(parsing: text) }
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
    }

    @Test("a prehashed (ED) and a legacy (Ed) signature: algorithm, key id, trusted comment, timestamp, what the global signature covers")
    func signatures() throws {
        let key = try Minisign.PublicKey(parsing: Fixture.publicKeyFile)
        let hashed = try Minisign.Signature(parsing: Array(Fixture.prehashed.utf8))
        #expect(hashed.algorithm == .prehashed)
        #expect(hashed.keyID == key.keyID)
        #expect(hashed.signature.count == 64 && hashed.globalSignature.count == 64)
        #expect(hashed.trustedComment == "timestamp:1763900000\tfile:doc.json\thashed")
        #expect(hashed.timestamp == Date(timeIntervalSince1970: 1_763_900_000))
        #expect(hashed.globallySignedBytes == hashed.signature + Array("timestamp:1763900000\tfile:doc.json\thashed".utf8))

        let legacy = try Minisign.Signature(parsing: Array(Fixture.legacy.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        #expect(legacy.algorithm == .plain)
        #expect(legacy.keyID == key.keyID)
        #expect(legacy.timestamp == Date(timeIntervalSince1970: 1_795_434_171))
    }

    @Test("a trusted comment without a timestamp has none")
    func noTimestamp() throws {
        for comment in ["trusted comment: file:doc.json", "trusted comment: timestamp:soon", "trusted comment: timestamp:"] {
            let text = Fixture.replacing(line: 2, in: Fixture.prehashed, with: comment)
            #expect(try Minisign.Signature(parsing: Array(text.utf8)).timestamp == nil, "\(comment)")
        }
    }

    @Test("garbage, oversize and malformed signature files are refused with the reason", arguments: [
        (String(repeating: "x", count: 4097), "larger than 4096 bytes"),
        ("untrusted comment: x\nRUQ=\n", "has 3 lines"),
        (Fixture.replacing(line: 0, in: Fixture.prehashed, with: "comment: x"), "line 1 does not start with 'untrusted comment: '"),
        (Fixture.replacing(line: 1, in: Fixture.prehashed, with: "not base64!"), "line 2 is not a base64 minisign signature"),
        (Fixture.replacing(line: 1, in: Fixture.prehashed, with: Data(Array("Xd".utf8) + [UInt8](repeating: 0, count: 72)).base64EncodedString()), "is neither Ed nor ED"),
        (Fixture.replacing(line: 2, in: Fixture.prehashed, with: "comment: timestamp:1"), "line 3 does not start with 'trusted comment: '"),
        (Fixture.replacing(line: 2, in: Fixture.prehashed, with: "trusted comment: a\u{1B}[31mred"), "control characters"),
        (Fixture.replacing(line: 3, in: Fixture.prehashed, with: "AAAA"), "line 4 is not a base64 global signature"),
        (Fixture.prehashed + "more\n", "text after its 4 lines"),
    ])
    func badSignature(text: String, problem: String) {
        let error = #expect(throws: Minisign.Invalid.self) { try Minisign.Signature(parsing: Array(text.utf8)) }
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
    }

    @Test("bytes that are not UTF-8 are refused")
    func notText() {
        let error = #expect(throws: Minisign.Invalid.self) { try Minisign.Signature(parsing: [0xFF, 0xFE, 0x0A]) }
        #expect(error?.description == "signature is not UTF-8 text")
    }
}
