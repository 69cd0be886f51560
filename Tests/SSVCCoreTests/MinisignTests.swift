import Foundation
import SSVCCore
import Testing

/// Files made with Debian's minisign 0.11 (`Tests/Fixtures/minisign`):
/// `minisign -G -W`, then `minisign -S -t …` (prehashed, the default) and
/// `minisign -S -l` (legacy: the document itself signed).
enum MinisignFixture {
    /// A file of `Tests/Fixtures/minisign`, made by Debian's minisign 0.11.
    static func file(_ name: String) -> String {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try! String(contentsOf: folder.appendingPathComponent("Fixtures/minisign/\(name)"), encoding: .utf8)
    }

    static let publicKeyFile = file("minisign.pub")
    static let prehashed = file("prehashed.minisig")
    static let legacy = file("legacy.minisig")

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
        let key = try Minisign.PublicKey(parsing: MinisignFixture.publicKeyFile)
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
        let key = try Minisign.PublicKey(parsing: MinisignFixture.publicKeyFile)
        let hashed = try Minisign.Signature(parsing: Array(MinisignFixture.prehashed.utf8))
        #expect(hashed.algorithm == .prehashed)
        #expect(hashed.keyID == key.keyID)
        #expect(hashed.signature.count == 64 && hashed.globalSignature.count == 64)
        #expect(hashed.trustedComment == "timestamp:1763900000\tfile:doc.json\thashed")
        #expect(hashed.timestamp == Date(timeIntervalSince1970: 1_763_900_000))
        #expect(hashed.globallySignedBytes == hashed.signature + Array("timestamp:1763900000\tfile:doc.json\thashed".utf8))

        let legacy = try Minisign.Signature(parsing: Array(MinisignFixture.legacy.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        #expect(legacy.algorithm == .plain)
        #expect(legacy.keyID == key.keyID)
        #expect(legacy.timestamp == Date(timeIntervalSince1970: 1_795_434_171))
    }

    @Test("a trusted comment without a timestamp has none")
    func noTimestamp() throws {
        for comment in ["trusted comment: file:doc.json", "trusted comment: timestamp:soon", "trusted comment: timestamp:"] {
            let text = MinisignFixture.replacing(line: 2, in: MinisignFixture.prehashed, with: comment)
            #expect(try Minisign.Signature(parsing: Array(text.utf8)).timestamp == nil, "\(comment)")
        }
    }

    @Test("garbage, oversize and malformed signature files are refused with the reason", arguments: [
        (String(repeating: "x", count: 4097), "larger than 4096 bytes"),
        ("untrusted comment: x\nRUQ=\n", "has 3 lines"),
        (MinisignFixture.replacing(line: 0, in: MinisignFixture.prehashed, with: "comment: x"), "line 1 does not start with 'untrusted comment: '"),
        (MinisignFixture.replacing(line: 1, in: MinisignFixture.prehashed, with: "not base64!"), "line 2 is not a base64 minisign signature"),
        (MinisignFixture.replacing(line: 1, in: MinisignFixture.prehashed, with: Data(Array("Xd".utf8) + [UInt8](repeating: 0, count: 72)).base64EncodedString()), "is neither Ed nor ED"),
        (MinisignFixture.replacing(line: 2, in: MinisignFixture.prehashed, with: "comment: timestamp:1"), "line 3 does not start with 'trusted comment: '"),
        (MinisignFixture.replacing(line: 2, in: MinisignFixture.prehashed, with: "trusted comment: a\u{1B}[31mred"), "control characters"),
        (MinisignFixture.replacing(line: 3, in: MinisignFixture.prehashed, with: "AAAA"), "line 4 is not a base64 global signature"),
        (MinisignFixture.prehashed + "more\n", "text after its 4 lines"),
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

    @Test("the trusted comment keeps its trailing spaces, which are signed; CRLF and spaces after base64 are forgiven")
    func trailingSpaces() throws {
        var lines = MinisignFixture.prehashed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[1] += "  "
        lines[2] += " \t"
        let signature = try Minisign.Signature(parsing: Array(lines.joined(separator: "\r\n").utf8))
        #expect(signature.trustedComment == "timestamp:1763900000\tfile:doc.json\thashed \t")
        #expect(signature.signature.count == 64)
    }
}
