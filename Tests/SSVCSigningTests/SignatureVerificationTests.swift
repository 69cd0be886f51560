import Foundation
import SSVCCore
import SSVCSigning
import Testing

/// A document, its signatures and keys made with Debian's minisign 0.11
/// (`Tests/Fixtures/minisign`): `minisign -S -t …` (prehashed, `ED`) and
/// `minisign -S -l` (legacy, `Ed`).
private enum Fixture {
    /// A file of `Tests/Fixtures/minisign`, made by Debian's minisign 0.11.
    static func file(_ name: String) -> String {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try! String(contentsOf: folder.appendingPathComponent("Fixtures/minisign/\(name)"), encoding: .utf8)
    }

    static let document = Array(file("doc.json").utf8)
    static let key = file("minisign.pub")
    /// Another key pair's, id 943C30A59AED68CE.
    static let otherKey = file("other.pub")
    static let prehashed = file("prehashed.minisig")
    static let legacy = file("legacy.minisig")
    static let signedPrehashed = Date(timeIntervalSince1970: 1_763_900_000)
    static let signedLegacy = Date(timeIntervalSince1970: 1_795_434_171)

    static func requirement(_ keys: [String] = [key], maxAgeDays: Int? = nil) throws -> SignatureRequirement {
        SignatureRequirement(publicKeys: try keys.map { try Minisign.PublicKey(parsing: $0) }, url: "https://h/doc.json.minisig", maxAgeDays: maxAgeDays)
    }
}

@Suite("minisign signatures verified with libsodium")
struct SignatureVerificationTests {
    @Test("a prehashed (ED) and a legacy (Ed) signature are accepted, with their key id and time")
    func accepted() throws {
        let requirement = try Fixture.requirement()
        let hashed = try requirement.accept(
            Fixture.document, signature: Array(Fixture.prehashed.utf8), etag: "\"s1\"", now: Fixture.signedLegacy, newestAccepted: nil
        )
        #expect(hashed == AcceptedSignature(text: Fixture.prehashed, etag: "\"s1\"", keyID: "475416EDBA99E22F", signedAt: Fixture.signedPrehashed))
        let legacy = try requirement.accept(
            Fixture.document, signature: Array(Fixture.legacy.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil
        )
        #expect(legacy.signedAt == Fixture.signedLegacy)
    }

    @Test("a document changed by one byte is refused, in either mode", arguments: [Fixture.prehashed, Fixture.legacy])
    func tamperedDocument(signature: String) throws {
        var document = Fixture.document
        document[document.count - 3] = UInt8(ascii: "2")
        let problem = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement().accept(document, signature: Array(signature.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil)
        }
        #expect(problem?.description == "the signature by key 475416EDBA99E22F does not match the document")
    }

    @Test("a changed trusted comment is refused: the global signature covers it")
    func tamperedComment() throws {
        let forged = Fixture.legacy.replacingOccurrences(of: "timestamp:1795434171", with: "timestamp:1795434999")
        let problem = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement().accept(Fixture.document, signature: Array(forged.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil)
        }
        #expect(problem?.description == "the global signature by key 475416EDBA99E22F does not match the trusted comment: it was altered")
    }

    @Test("a signature by a key not configured names both key ids")
    func unknownKey() throws {
        let problem = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement([Fixture.otherKey]).accept(
                Fixture.document, signature: Array(Fixture.prehashed.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil
            )
        }
        #expect(problem?.description == "signed by key 475416EDBA99E22F, which is not among public-keys (943C30A59AED68CE)")
    }

    @Test("a key with the signer's id but other key bytes does not verify")
    func impostorKey() throws {
        let real = Array(Data(base64Encoded: String(Fixture.key.split(separator: "\n")[1]))!)
        let other = Array(Data(base64Encoded: String(Fixture.otherKey.split(separator: "\n")[1]))!)
        let impostor = Data(real[0..<10] + other[10..<42]).base64EncodedString()
        let problem = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement([impostor]).accept(
                Fixture.document, signature: Array(Fixture.prehashed.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil
            )
        }
        #expect(problem?.description == "the signature by key 475416EDBA99E22F does not match the document")
    }

    @Test("with two keys, either one's signature is accepted")
    func rotation() throws {
        let requirement = try Fixture.requirement([Fixture.otherKey, Fixture.key])
        let accepted = try requirement.accept(
            Fixture.document, signature: Array(Fixture.prehashed.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil
        )
        #expect(accepted.keyID == "475416EDBA99E22F")
    }

    @Test("a verified signature is still refused when expired or older than the one accepted")
    func freshnessAfterVerification() throws {
        let expired = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement(maxAgeDays: 30).accept(
                Fixture.document, signature: Array(Fixture.prehashed.utf8), etag: nil, now: Fixture.signedLegacy, newestAccepted: nil
            )
        }
        #expect(expired?.description == "signed 2025-11-23, older than max-signature-age-days 30")
        let rollback = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement().accept(
                Fixture.document, signature: Array(Fixture.prehashed.utf8), etag: nil, now: Fixture.signedLegacy,
                newestAccepted: Fixture.signedLegacy
            )
        }
        #expect(rollback?.description.hasSuffix("refused as a rollback") == true)
    }

    @Test("garbage is refused as not a signature")
    func garbage() throws {
        let problem = #expect(throws: SignatureProblem.self) {
            try Fixture.requirement().accept(Fixture.document, signature: Array("<html>404</html>".utf8), etag: nil, now: Date(), newestAccepted: nil)
        }
        #expect(problem?.description == "signature has 1 lines, not the 4 of a .minisig file")
    }
}
