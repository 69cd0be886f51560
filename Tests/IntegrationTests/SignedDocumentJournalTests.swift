import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

@Suite("signed documents: the journal", .processSlot, .serialized, JournalTrait())
struct SignedDocumentJournalTests {
    @Test("a signed check's entry carries SSVC_KEY_ID and SSVC_SIGNED_AT; a rejected signature has its own MESSAGE_ID")
    func fields() async throws {
        let keys = try await MinisignKeyPair()
        let name = "signed-\(UUID().uuidString.prefix(8).lowercased())"
        let server = try await VersionServer(scenario: files(["/\(name).json": goodBody, "/\(name).json.minisig": try keys.sign(goodBody)]))
        let daemon = try DaemonProcess(apps: signedApp(name, server: server, keys: [keys.publicKey]), arguments: ["--log-target", "journal"])
        #expect(await daemon.wait { daemon.app(name)?["lastSuccess"] != nil })
        try server.set(files(["/\(name).json": goodBody], answers: ["/\(name).json.minisig": ["status": 404]]))
        try await check(daemon, name)

        let entries = await journalEntries(app: name, atLeast: 2)
        try #require(entries.count >= 2, "journal entries for \(name): \(entries)")
        let accepted = entries[0]
        #expect(accepted["MESSAGE_ID"] as? String == MessageID.updateAvailable.rawValue)
        #expect(accepted["SSVC_KEY_ID"] as? String == keys.keyID)
        let signedAt = accepted["SSVC_SIGNED_AT"] as? String
        #expect(signedAt.map { RFC3339.parse($0) != nil } == true, "\(accepted)")
        let rejected = entries[1]
        #expect(rejected["MESSAGE_ID"] as? String == MessageID.signatureRejected.rawValue)
        #expect((rejected["SSVC_ERROR"] as? String)?.hasSuffix(".json.minisig: HTTP 404 Not Found") == true, "\(rejected)")
        #expect(rejected["PRIORITY"] as? String == "4")
        #expect(await daemon.stop() == 0)
    }
}
