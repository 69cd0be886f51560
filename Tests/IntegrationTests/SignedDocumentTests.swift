import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

@Suite("signed documents: minisign signatures, freshness and rollback", .processSlot)
struct SignedDocumentTests {
    @Test("documents minisign signed in both modes are accepted, with key and time in the status; an app without keys fetches no signature")
    func bothModes() async throws {
        let keys = try await MinisignKeyPair()
        let hashed = try await keys.sign(goodBody)
        let legacy = try await keys.sign(goodBody, legacy: true)
        // "ED" and "Ed" begin "RU" and "RW" in base64: minisign really made one of each.
        #expect(hashed.split(separator: "\n")[1].hasPrefix("RU") && legacy.split(separator: "\n")[1].hasPrefix("RW"))
        let server = try await VersionServer(scenario: files([
            "/hashed.json": goodBody, "/hashed.json.minisig": hashed, "/legacy.json": goodBody, "/legacy.json.minisig": legacy,
            "/plain.json": goodBody,
        ]))
        let daemon = try DaemonProcess(apps: [
            signedApp("hashed", server: server, keys: [keys.publicKey]),
            signedApp("legacy", server: server, keys: [keys.publicKey]),
            appTable("plain", url: server.url("/plain.json")),
        ].joined(separator: "\n"))
        #expect(await daemon.wait { ["hashed", "legacy", "plain"].allSatisfy { daemon.app($0)?["lastSuccess"] != nil } }, "\(daemon.log)")

        let apps = try await daemon.statusByApp()
        for name in ["hashed", "legacy"] {
            #expect(apps[name]?["signatureKeyId"] as? String == keys.keyID)
            let text = try #require(apps[name]?["signedAt"] as? String, "\(apps[name] ?? [:])")
            let signedAt = try #require(RFC3339.parse(text))
            #expect(abs(signedAt.timeIntervalSinceNow) < 120)
            #expect(apps[name]?["latestVersion"] as? String == "1.1")
            #expect((daemon.app(name)?["signature"] as? [String: Any])?["keyID"] as? String == keys.keyID)
            #expect(daemon.app(name)?["newestSignatureTime"] != nil)
        }
        #expect(apps["plain"]?["signatureKeyId"] == nil && apps["plain"]?["signedAt"] == nil)
        let table = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"]).standardOutput
        #expect(table.contains("hashed: signed by key \(keys.keyID) at "), "\(table)")
        let paths = server.requests().compactMap { $0["path"] as? String }
        #expect(paths.filter { $0 == "/hashed.json.minisig" }.count == 1, "\(paths)")
        #expect(!paths.contains("/plain.json.minisig"), "\(paths)")
        #expect(await daemon.stop() == 0)
    }

    /// A way a signature goes wrong after a good one was accepted: what the
    /// server then serves, and the error the check must end in.
    struct Breakage: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let config: String
        /// Given the app's key pair, another pair and the path of the app's
        /// document: the server's new files and answers.
        let serve: @Sendable (MinisignKeyPair, MinisignKeyPair, String) async throws -> (bodies: [String: String], answers: [String: [String: Any]])
        /// Given the two key pairs and the server: the error expected.
        let error: @Sendable (MinisignKeyPair, MinisignKeyPair, VersionServer) -> String

        static let all: [Breakage] = [
            Breakage(testDescription: "a tampered document", config: "", serve: { keys, _, path in
                ([path: newerBody, path + ".minisig": try await keys.sign(goodBody)], [:])
            }, error: { keys, _, _ in "signature rejected: the signature by key \(keys.keyID) does not match the document" }),
            Breakage(testDescription: "a tampered trusted comment", config: "", serve: { keys, _, path in
                let good = try await keys.sign(goodBody)
                var lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines[2] = "trusted comment: timestamp:\(Int(Date().timeIntervalSince1970) + 86_400 * 365)\tfile:v.json"
                let forged = lines.joined(separator: "\n")
                #expect(try await !keys.verifies(goodBody, forged), "minisign itself must refuse the forged comment")
                return ([path: goodBody, path + ".minisig": forged], [:])
            }, error: { keys, _, _ in
                "signature rejected: the global signature by key \(keys.keyID) does not match the trusted comment: it was altered"
            }),
            Breakage(testDescription: "a document signed with a key not configured", config: "", serve: { _, other, path in
                ([path: newerBody, path + ".minisig": try await other.sign(newerBody)], [:])
            }, error: { keys, other, _ in
                "signature rejected: signed by key \(other.keyID), which is not among public-keys (\(keys.keyID))"
            }),
            Breakage(testDescription: "a missing .minisig (404)", config: "", serve: { _, _, path in
                ([path: newerBody], [path + ".minisig": ["status": 404]])
            }, error: { _, _, server in "signature \(server.url("/app.json.minisig")): HTTP 404 Not Found" }),
            Breakage(testDescription: "a garbage signature file", config: "", serve: { _, _, path in
                ([path: goodBody, path + ".minisig": "<html><body>Moved</body></html>\n"], [:])
            }, error: { _, _, _ in "signature rejected: signature has 2 lines, not the 4 of a .minisig file" }),
            Breakage(testDescription: "an oversize signature file", config: "", serve: { _, _, path in
                ([path: goodBody, path + ".minisig": String(repeating: "A", count: 5000)], [:])
            }, error: { _, _, server in
                "signature \(server.url("/app.json.minisig")): response of 5000 bytes is larger than the 4096 bytes a signature may have"
            }),
            Breakage(testDescription: "an expired signature", config: "max-signature-age-days = 30", serve: { keys, _, path in
                let old = Date().addingTimeInterval(-40 * 86_400)
                return ([path: goodBody, path + ".minisig": try await keys.sign(goodBody, signedAt: old)], [:])
            }, error: { _, _, _ in
                "signature rejected: signed \(RFC3339.format(Date().addingTimeInterval(-40 * 86_400)).prefix(10)), older than max-signature-age-days 30"
            }),
            Breakage(testDescription: "a rollback to an older signature", config: "", serve: { keys, _, path in
                let earlier = Date().addingTimeInterval(-7 * 86_400)
                return ([path: newerBody, path + ".minisig": try await keys.sign(newerBody, signedAt: earlier)], [:])
            }, error: { _, _, _ in "refused as a rollback" }),
        ]
    }

    @Test("each bad signature fails the check with its reason and the signatureRejected kind; the last good result is kept", arguments: Breakage.all)
    func breakage(_ breakage: Breakage) async throws {
        let keys = try await MinisignKeyPair()
        let other = try await MinisignKeyPair()
        let server = try await VersionServer(scenario: files(["/app.json": goodBody, "/app.json.minisig": try keys.sign(goodBody)]))
        let daemon = try DaemonProcess(apps: signedApp("app", server: server, keys: [keys.publicKey], extra: breakage.config))
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        let before = try #require(try await daemon.statusByApp()["app"])

        let served = try await breakage.serve(keys, other, "/app.json")
        try server.set(files(served.bodies, answers: served.answers))
        try await check(daemon, "app")
        let expected = breakage.error(keys, other, server)
        let after = try #require(try await daemon.statusByApp()["app"])
        #expect((after["lastError"] as? String)?.contains(expected) == true, "\(after["lastError"] ?? "none") does not hold \(expected)")
        #expect(after["consecutiveFailures"] as? Int == 1)
        #expect(after["latestVersion"] as? String == "1.1", "the last good result is kept")
        #expect(after["signedAt"] as? String == before["signedAt"] as? String)
        #expect(after["signatureKeyId"] as? String == keys.keyID)
        #expect(daemon.app("app")?["response"] as? String == goodBody)
        #expect(daemon.lines(for: "app").contains { $0.contains("MESSAGE_ID=\(MessageID.signatureRejected.rawValue)") }, "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    @Test("the bearer token goes with the signature on the document's host, and not to a signature-url elsewhere")
    func tokenStaysHome() async throws {
        let keys = try await MinisignKeyPair()
        let signature = try await keys.sign(goodBody)
        let server = try await VersionServer(scenario: files(["/home.json": goodBody, "/home.json.minisig": signature, "/away.json": goodBody]))
        let elsewhere = try await VersionServer(scenario: files(["/away.json.minisig": signature]))
        let folder = try TemporaryFolder()
        let token = "sig-token-\(UUID().uuidString.prefix(8))"
        let tokenFile = try folder.file("token", token + "\n")
        let apps = [
            signedApp("home", server: server, keys: [keys.publicKey], extra: "bearer-token-file = \"\(tokenFile)\""),
            signedApp("away", server: server, keys: [keys.publicKey], extra: """
                bearer-token-file = "\(tokenFile)"
                signature-url = "http://localhost:\(elsewhere.port)/away.json.minisig"
                """),
        ]
        let daemon = try DaemonProcess(apps: apps.joined(separator: "\n"))
        #expect(await daemon.wait { ["home", "away"].allSatisfy { daemon.app($0)?["lastSuccess"] != nil } }, "\(daemon.log)")
        func authorization(_ server: VersionServer, _ path: String) -> String? {
            let request = server.requests().last { $0["path"] as? String == path }
            return (request?["headers"] as? [String: String])?["Authorization"]
        }
        #expect(authorization(server, "/home.json.minisig") == "Bearer \(token)")
        #expect(authorization(server, "/away.json") == "Bearer \(token)")
        #expect(elsewhere.requests().count == 1)
        #expect(authorization(elsewhere, "/away.json.minisig") == nil, "the token went to another host")
        #expect(await daemon.stop() == 0)
    }

    @Test("rotation: documents signed by either of two keys are accepted; once the old key is removed, its signatures are refused")
    func rotation() async throws {
        let old = try await MinisignKeyPair()
        let new = try await MinisignKeyPair()
        let server = try await VersionServer(scenario: files(["/app.json": goodBody, "/app.json.minisig": try old.sign(goodBody)]))
        let daemon = try DaemonProcess(apps: signedApp("app", server: server, keys: [old.publicKey]))
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")

        try await reconfigure(daemon) { $0.replacingOccurrences(of: "\"\(old.publicKey)\"", with: "\"\(old.publicKey)\", \"\(new.publicKey)\"") }
        try await server.set(files(["/app.json": newerBody, "/app.json.minisig": try new.sign(newerBody)]))
        try await check(daemon, "app")
        var app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["signatureKeyId"] as? String == new.keyID, "\(app)")
        #expect(app["latestVersion"] as? String == "9.9")

        try await reconfigure(daemon) { $0.replacingOccurrences(of: "\"\(old.publicKey)\", ", with: "") }
        try await server.set(files(["/app.json": goodBody, "/app.json.minisig": try old.sign(goodBody)]))
        try await check(daemon, "app")
        app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["lastError"] as? String == "signature rejected: signed by key \(old.keyID), which is not among public-keys (\(new.keyID))")
        #expect(app["latestVersion"] as? String == "9.9")
        #expect(await daemon.stop() == 0)
    }

    @Test("304: the stored document and its verified signature are reused; a document signed again is seen, and a rollback still refused")
    func notModified() async throws {
        let keys = try await MinisignKeyPair()
        let first = Date().addingTimeInterval(-3_600)
        let server = try await VersionServer(scenario: files(
            ["/app.json": goodBody, "/app.json.minisig": try keys.sign(goodBody, signedAt: first)],
            answers: ["/app.json": ["etag": "\"d1\""], "/app.json.minisig": ["etag": "\"s1\""]]
        ))
        let daemon = try DaemonProcess(apps: signedApp("app", server: server, keys: [keys.publicKey]))
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        let accepted = try #require(try await daemon.statusByApp()["app"]?["signedAt"] as? String)
        #expect(accepted == RFC3339.format(Date(timeIntervalSince1970: first.timeIntervalSince1970.rounded(.down))))

        try await check(daemon, "app")
        let requests = server.requests()
        let conditional = requests.suffix(2).map { ($0["path"] as? String ?? "", ($0["headers"] as? [String: String])?["If-None-Match"]) }
        #expect(conditional.map(\.0) == ["/app.json", "/app.json.minisig"], "\(requests)")
        #expect(conditional.map(\.1) == ["\"d1\"", "\"s1\""], "both asked for conditionally: \(conditional)")
        var app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["consecutiveFailures"] as? Int == 0, "\(app)")
        #expect(app["signedAt"] as? String == accepted)

        // Signed again, the document unchanged: its 304 does not hide the new signature.
        let again = Date().addingTimeInterval(-60)
        try await server.set(files(
            ["/app.json": goodBody, "/app.json.minisig": try keys.sign(goodBody, signedAt: again)],
            answers: ["/app.json": ["etag": "\"d1\""], "/app.json.minisig": ["etag": "\"s2\""]]
        ))
        try await check(daemon, "app")
        app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["signedAt"] as? String == RFC3339.format(Date(timeIntervalSince1970: again.timeIntervalSince1970.rounded(.down))), "\(app)")

        try await server.set(files(
            ["/app.json": goodBody, "/app.json.minisig": try keys.sign(goodBody, signedAt: first)],
            answers: ["/app.json": ["etag": "\"d1\""], "/app.json.minisig": ["etag": "\"s3\""]]
        ))
        try await check(daemon, "app")
        app = try #require(try await daemon.statusByApp()["app"])
        #expect((app["lastError"] as? String)?.hasSuffix("refused as a rollback") == true, "\(app)")
        #expect(await daemon.stop() == 0)
    }

    @Test("the newest signature time survives a restart: an older signature is still a rollback")
    func rollbackAfterRestart() async throws {
        let keys = try await MinisignKeyPair()
        let server = try await VersionServer(scenario: files(["/app.json": newerBody, "/app.json.minisig": try keys.sign(newerBody)]))
        let apps = signedApp("app", server: server, keys: [keys.publicKey])
        let daemon = try DaemonProcess(apps: apps)
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(await daemon.stop() == 0)

        let earlier = Date().addingTimeInterval(-86_400)
        try await server.set(files(["/app.json": goodBody, "/app.json.minisig": try keys.sign(goodBody, signedAt: earlier)]))
        let restarted = try DaemonProcess(apps: apps, folder: daemon.folder)
        #expect(await restarted.wait { FileManager.default.fileExists(atPath: restarted.socketPath) })
        try await check(restarted, "app")
        let app = try #require(try await restarted.statusByApp()["app"])
        #expect((app["lastError"] as? String)?.hasSuffix("refused as a rollback") == true, "\(app)")
        #expect(app["latestVersion"] as? String == "9.9")
        #expect(await restarted.stop() == 0)
    }

    @Test("a signature older than max-signature-age-days makes the status stale at once, and the next check fails as expired")
    func expiryMakesStale() async throws {
        let keys = try await MinisignKeyPair()
        let signedAt = Date().addingTimeInterval(-20 * 86_400)
        let server = try await VersionServer(scenario: files(["/app.json": goodBody, "/app.json.minisig": try keys.sign(goodBody, signedAt: signedAt)]))
        let daemon = try DaemonProcess(apps: signedApp("app", server: server, keys: [keys.publicKey], extra: "max-signature-age-days = 30"))
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(try await daemon.statusByApp()["app"]?["stale"] as? Bool == false)

        try await reconfigure(daemon) { $0.replacingOccurrences(of: "max-signature-age-days = 30", with: "max-signature-age-days = 10") }
        #expect(try await daemon.statusByApp()["app"]?["stale"] as? Bool == true, "stale without a check")
        let table = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"]).standardOutput
        #expect(table.contains("update-available (stale)"), "\(table)")

        try await check(daemon, "app")
        let app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["lastError"] as? String == "signature rejected: signed \(RFC3339.format(signedAt).prefix(10)), older than max-signature-age-days 10")
        #expect(app["stale"] as? Bool == true)
        #expect(app["latestVersion"] as? String == "1.1")
        #expect(await daemon.stop() == 0)
    }
}
