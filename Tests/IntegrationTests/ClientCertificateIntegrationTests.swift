import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("fleet networks: client certificates", .processSlot)
struct ClientCertificateIntegrationTests {
    @Test("the daemon's client certificate by default, an app's own with its key from a credential; none is refused by the server")
    func presented() async throws {
        let tls = try await TestCertificates()
        let fleet = try await tls.client("fleet-01")
        let own = try await tls.client("fleet-02")
        let server = try await VersionServer(scenario: ["body": goodBody], tls: tls, clientCA: tls.caCertificate)
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("credentials"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: own.key, toPath: folder.url.appendingPathComponent("credentials/client-key").path)
        let daemon = try DaemonProcess(
            daemon: "ca-file = \"\(tls.caCertificate)\"\nclient-certificate = \"\(fleet.certificate)\"\nclient-key = \"\(fleet.key)\"",
            apps: appTable("default", url: server.url("/d")) + "\n"
                + appTable("own", url: server.url("/o"), extra: "client-certificate = \"\(own.certificate)\"\nclient-key-credential = \"client-key\""),
            environment: ["CREDENTIALS_DIRECTORY": folder.url.appendingPathComponent("credentials").path], folder: folder
        )
        #expect(await daemon.wait { daemon.app("default")?["lastSuccess"] != nil && daemon.app("own")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(server.requests().first { $0["path"] as? String == "/d" }?["peer"] as? String == "fleet-01")
        #expect(server.requests().first { $0["path"] as? String == "/o" }?["peer"] as? String == "fleet-02")
        let key = try String(contentsOfFile: own.key, encoding: .utf8)
        let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
        #expect(try await leaks(of: [keyBody], in: daemon).isEmpty)
        #expect(await daemon.stop() == 0)

        let without = try DaemonProcess(daemon: "ca-file = \"\(tls.caCertificate)\"", apps: appTable("bare", url: server.url("/b")))
        #expect(await without.wait { (without.app("bare")?["consecutiveFailures"] as? Int ?? 0) > 0 }, "\(without.log)")
        #expect(without.app("bare")?["lastSuccess"] == nil)
        #expect(await without.stop() == 0)
    }

    @Test("a key that does not belong to the certificate stops the start (exit 78) and is refused by a reload, which keeps the running configuration")
    func mismatchedKey() async throws {
        let tls = try await TestCertificates()
        let first = try await tls.client("first")
        let second = try await tls.client("second")
        let folder = try TemporaryFolder()
        let path = try folder.file("bad.toml", """
            [daemon]
            state-dir = "state"
            client-certificate = "\(first.certificate)"
            client-key = "\(second.key)"
            """)
        let start = try await Executable.run("ssvcd", ["--config", path, "--log-target", "stderr"])
        #expect(start.status == 78)
        #expect(start.standardError.contains("daemon.client-certificate: the key in \(second.key) does not belong to the certificate in \(first.certificate)"), "\(start.standardError)")

        let missing = try folder.file("missing.toml", "[daemon]\nclient-certificate = \"\(first.certificate)\"\nclient-key = \"/nonexistent/key.pem\"\n")
        let gone = try await Executable.run("ssvcd", ["--config", missing, "--log-target", "stderr"])
        #expect(gone.status == 78)
        #expect(gone.standardError.contains("cannot open /nonexistent/key.pem"), "\(gone.standardError)")

        let daemon = try await controlDaemon()
        try FileManager.default.createDirectory(at: daemon.folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        _ = try daemon.folder.file("apps.d/gamma.toml", """
            url = "https://127.0.0.1:9/"
            version = "1.0"
            client-certificate = "\(second.certificate)"
            client-key = "\(first.key)"
            """)
        let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"])
        #expect(reload.status == 1)
        #expect(reload.standardError.contains("does not belong to the certificate"), "\(reload.standardError)")
        #expect(try await daemon.statusByApp().keys.sorted() == ["alpha", "beta"])
        #expect(await daemon.stop() == 0)
    }
}
