import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("fleet networks: tokens and headers", .processSlot)
struct TokenIntegrationTests {
    @Test("a bearer token from a file or a credential, read afresh at each check, kept from another host; headers sent; failures clear")
    func tokens() async throws {
        let tls = try await TestCertificates()
        let server = try await VersionServer(scenario: ["body": goodBody], tls: tls)
        let elsewhere = try await VersionServer(scenario: ["body": goodBody], tls: tls)
        let hop = try await VersionServer(scenario: ["mode": "redirect", "location": "https://localhost:\(elsewhere.port)/elsewhere"], tls: tls)
        let folder = try TemporaryFolder()
        let fileToken = "file-token-\(UUID().uuidString.prefix(8))"
        let credentialToken = "credential-token-\(UUID().uuidString.prefix(8))"
        let tokenFile = try folder.file("token", "\(fileToken)\nnot this line\n")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("credentials"), withIntermediateDirectories: true)
        _ = try folder.file("credentials/update-token", credentialToken + "\n")
        let apps = [
            appTable("from-file", url: server.url("/f"), extra: "bearer-token-file = \"\(tokenFile)\"\nheaders = { X-Fleet = \"eu-1\", User-Agent = \"fleet-agent/2\" }"),
            appTable("from-credential", url: server.url("/c"), extra: "bearer-token-credential = \"update-token\""),
            appTable("redirected", url: hop.url("/r"), extra: "bearer-token-file = \"\(tokenFile)\""),
        ]
        let daemon = try DaemonProcess(
            daemon: "ca-file = \"\(tls.caCertificate)\"", apps: apps.joined(separator: "\n"),
            environment: ["CREDENTIALS_DIRECTORY": folder.url.appendingPathComponent("credentials").path], folder: folder
        )
        #expect(await daemon.wait { ["from-file", "from-credential", "redirected"].allSatisfy { daemon.app($0)?["lastSuccess"] != nil } }, "\(daemon.log)")
        func headers(_ server: VersionServer, _ path: String) -> [String: String] {
            server.requests().last { $0["path"] as? String == path }?["headers"] as? [String: String] ?? [:]
        }
        #expect(headers(server, "/f")["Authorization"] == "Bearer \(fileToken)")
        #expect(headers(server, "/f")["X-Fleet"] == "eu-1")
        #expect(headers(server, "/f")["User-Agent"] == "fleet-agent/2", "an app's header replaces ours")
        #expect(headers(server, "/c")["User-Agent"]?.hasPrefix("ssvcd/") == true)
        #expect(headers(server, "/c")["Authorization"] == "Bearer \(credentialToken)")
        #expect(headers(hop, "/r")["Authorization"] == "Bearer \(fileToken)")
        #expect(elsewhere.requests().count == 1)
        #expect(headers(elsewhere, "/elsewhere")["Authorization"] == nil, "the token went to another host")

        // Rotated: the next check sends the new one.
        let rotated = "rotated-\(UUID().uuidString.prefix(8))"
        try "\(rotated)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "from-file"]).status == 10)
        #expect(headers(server, "/f")["Authorization"] == "Bearer \(rotated)")

        // Empty, then gone: failed checks that say so; the last good result stays.
        let requestsBefore = server.requests().count
        try "\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "from-file"])
        var app = try await daemon.statusByApp()["from-file"] ?? [:]
        #expect(app["lastError"] as? String == "bearer token (\(tokenFile)): the first line is empty")
        #expect(app["status"] as? String == "update-available")
        try FileManager.default.removeItem(atPath: tokenFile)
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "from-file"])
        app = try await daemon.statusByApp()["from-file"] ?? [:]
        #expect((app["lastError"] as? String)?.hasPrefix("bearer token (\(tokenFile)): cannot open") == true, "\(app)")
        #expect(server.requests().count == requestsBefore, "a check without its token must not reach the server")
        #expect(try await leaks(of: [fileToken, credentialToken, rotated], in: daemon).isEmpty)
        #expect(await daemon.stop() == 0)
    }

    @Test("a token for a loopback http URL is not sent in clear through a proxy the environment puts in the way")
    func noTokenThroughProxy() async throws {
        let proxy = try await TinyProxy()
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        let token = "loopback-\(UUID().uuidString.prefix(8))"
        let tokenFile = try folder.file("token", token + "\n")
        let daemon = try DaemonProcess(
            apps: appTable("local", url: server.url("/l"), extra: "bearer-token-file = \"\(tokenFile)\""),
            environment: ["http_proxy": proxy.url], folder: folder
        )
        #expect(await daemon.wait { (daemon.app("local")?["consecutiveFailures"] as? Int ?? 0) > 0 }, "\(daemon.log)")
        let error = daemon.app("local")?["lastError"] as? String ?? ""
        #expect(error.hasPrefix("bearer token: not sent in clear through proxy http://127.0.0.1:\(proxy.port)"), "\(error)")
        #expect(proxy.forwarded(toPort: server.port) == 0 && server.requests().isEmpty)
        #expect(await daemon.stop() == 0)
    }
}
