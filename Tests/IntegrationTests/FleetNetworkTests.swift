import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// Every place a secret could leak to: the daemon's log, its status (JSON
/// and table) and its state file; the journal entries of its PID when it
/// logs there. Returns the places where `secrets` were found.
private func leaks(of secrets: [String], in daemon: DaemonProcess, journal: Bool = false) async throws -> [String] {
    var places: [String: String] = [
        "log": daemon.log,
        "status --json": try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json"]).standardOutput,
        "status": try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"]).standardOutput,
        "state": (try? String(contentsOfFile: daemon.stateDirectory + "/state.json", encoding: .utf8)) ?? "",
    ]
    if journal {
        places["journal"] = try await Executable.run("/usr/bin/journalctl", ["-o", "export", "--no-pager", "_PID=\(daemon.process.pid)"]).standardOutput
    }
    return places.flatMap { place, text in secrets.filter { text.contains($0) }.map { "\($0) in \(place)" } }
}

/// A TCP listener on 127.0.0.1 that resets every connection once it has
/// read the request: a proxy that resets.
private final class ResettingListener {
    let folder: TemporaryFolder
    let process: ChildProcess
    let port: Int

    init() async throws {
        folder = try TemporaryFolder()
        let portFile = folder.url.appendingPathComponent("port").path
        let script = """
            import socket, struct, sys
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
            import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
            while True:
                c, _ = s.accept(); c.recv(65536)
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()
            """
        process = try ChildProcess("/usr/bin/python3", ["-c", script, portFile])
        var found: Int?
        _ = await eventually(within: 10, every: 0.05) {
            found = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            return found != nil
        }
        port = try #require(found, "the resetting listener did not start")
    }

    /// Killed when the test lets go of it (and reaped by `ChildProcess`).
    deinit { kill(process.pid, SIGKILL) }
}

@Suite("fleet networks: proxies", .processSlot)
struct ProxyIntegrationTests {
    @Test("through tinyproxy with Basic auth: https by CONNECT, http in absolute form; the status shows the proxy, password hidden")
    func bothSchemesThroughProxy() async throws {
        let tls = try await TestCertificates()
        let secure = try await VersionServer(scenario: ["body": goodBody], tls: tls)
        let plain = try await VersionServer(scenario: ["body": goodBody])
        let password = "proxy-pw-\(UUID().uuidString.prefix(8))"
        let proxy = try await TinyProxy(user: "alice", password: password)
        let daemon = try DaemonProcess(
            daemon: "proxy = \"\(proxy.url)\"\nca-file = \"\(tls.caCertificate)\"",
            apps: appTable("secure", url: secure.url("/s")) + "\n" + appTable("plain", url: plain.url("/p"))
        )
        #expect(await daemon.wait { daemon.app("secure")?["lastSuccess"] != nil && daemon.app("plain")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(proxy.tunnels(toPort: secure.port) == 1, "\(proxy.log)")
        #expect(proxy.forwarded(toPort: plain.port) == 1, "\(proxy.log)")
        #expect(proxy.tunnels(toPort: plain.port) == 0, "plain http must not be tunnelled")

        let shown = "http://***@127.0.0.1:\(proxy.port)"
        let apps = try await daemon.statusByApp()
        #expect(apps["secure"]?["proxy"] as? String == shown)
        #expect(apps["plain"]?["proxy"] as? String == shown)
        let table = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"]).standardOutput
        #expect(table.contains("secure: through proxy \(shown)"), "\(table)")
        #expect(try await leaks(of: [password], in: daemon).isEmpty)
        #expect(await daemon.stop() == 0)
    }

    @Test("the environment's proxies, NO_PROXY, an app's proxy = \"none\", and a redirect matched against the list again")
    func environmentAndBypass() async throws {
        let proxy = try await TinyProxy()
        let bypassed = try await VersionServer(scenario: ["body": goodBody])
        let proxied = try await VersionServer(scenario: ["body": goodBody])
        let hop = try await VersionServer(scenario: ["mode": "redirect", "location": proxied.url("/after-redirect")])
        let apps = [
            appTable("bypassed", url: "http://localhost:\(bypassed.port)/b"),
            appTable("proxied", url: proxied.url("/p")),
            appTable("direct", url: proxied.url("/d"), extra: "proxy = \"none\""),
            appTable("redirected", url: "http://localhost:\(hop.port)/r"),
        ]
        let daemon = try DaemonProcess(
            apps: apps.joined(separator: "\n"), environment: ["http_proxy": proxy.url, "no_proxy": ".localhost,localhost"]
        )
        #expect(await daemon.wait { ["bypassed", "proxied", "direct", "redirected"].allSatisfy { daemon.app($0)?["lastSuccess"] != nil } }, "\(daemon.log)")
        let paths = proxy.log.split(separator: "\n").filter { $0.contains("): GET http://") }
        #expect(paths.count == 2, "\(paths)")
        #expect(paths.contains { $0.contains("/p?") }, "\(paths)")
        #expect(paths.contains { $0.contains("/after-redirect HTTP") }, "the redirect target leaves NO_PROXY: \(paths)")
        #expect(proxy.forwarded(toPort: bypassed.port) == 0 && proxy.forwarded(toPort: hop.port) == 0)

        let status = try await daemon.statusByApp()
        #expect(status["proxied"]?["proxy"] as? String == "http://127.0.0.1:\(proxy.port)")
        for name in ["bypassed", "direct", "redirected"] {
            #expect(status[name]?["proxy"] == nil || status[name]?["proxy"] is NSNull, "\(name): \(status[name] ?? [:])")
        }
        #expect(await daemon.stop() == 0)
    }

    @Test("a proxy that is down, wants other credentials (407) or resets: a failed check naming the proxy, the last good result kept", JournalTrait())
    func proxyFailures() async throws {
        let tls = try await TestCertificates()
        let secure = try await VersionServer(scenario: ["body": goodBody], tls: tls)
        let plain = try await VersionServer(scenario: ["body": goodBody])
        let password = "right-\(UUID().uuidString.prefix(8))"
        let proxy = try await TinyProxy(user: "alice", password: password)
        let resetting = try await ResettingListener()
        let folder = try TemporaryFolder()
        let apps = appTable("secure", url: secure.url("/s")) + "\n" + appTable("plain", url: plain.url("/p"))
        func configure(_ proxyURL: String) throws {
            try """
                [daemon]
                state-dir = "state"
                socket = "control.sock"
                apps-dir = "apps.d"
                min-interval-seconds = 0
                first-check-window-seconds = 0
                catch-up-window-seconds = 0
                ca-file = "\(tls.caCertificate)"
                proxy = "\(proxyURL)"

                \(apps)
                """.write(toFile: folder.url.appendingPathComponent("ssvcd.toml").path, atomically: true, encoding: .utf8)
        }
        try configure(proxy.url)
        let daemon = try DaemonProcess(
            folder: folder, config: try String(contentsOfFile: folder.url.appendingPathComponent("ssvcd.toml").path, encoding: .utf8),
            daemon: "", apps: "", arguments: ["--log-target", "journal"], environment: [:]
        )
        #expect(await daemon.wait { daemon.app("secure")?["lastSuccess"] != nil && daemon.app("plain")?["lastSuccess"] != nil }, "\(daemon.log)")
        let good = try await daemon.statusByApp()

        func checkFails(containing expected: String, plain plainExpected: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"])
            let now = try await daemon.statusByApp()
            for name in ["secure", "plain"] {
                let error = now[name]?["lastError"] as? String ?? ""
                let wanted = name == "plain" ? plainExpected ?? expected : expected
                #expect(error.contains(wanted), "\(name): \(error)", sourceLocation: sourceLocation)
                #expect(now[name]?["status"] as? String == "update-available", sourceLocation: sourceLocation)
                #expect(now[name]?["lastSuccess"] as? String == good[name]?["lastSuccess"] as? String, sourceLocation: sourceLocation)
            }
        }

        await proxy.stop()
        try await checkFails(containing: "cannot connect to proxy http://***@127.0.0.1:\(proxy.port)")

        // No credentials: 407. Wrong ones: tinyproxy 1.11 answers a plain
        // request with 401 and refuses the tunnel.
        try await proxy.start()
        try configure("http://127.0.0.1:\(proxy.port)")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"]).status == 0)
        try await checkFails(containing: "proxy http://127.0.0.1:\(proxy.port) refused the request: HTTP 407 Proxy Authentication Required")
        let wrong = "wrong-\(UUID().uuidString.prefix(8))"
        try configure("http://alice:\(wrong)@127.0.0.1:\(proxy.port)")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"]).status == 0)
        try await checkFails(
            containing: "proxy http://***@127.0.0.1:\(proxy.port) refused the tunnel to 127.0.0.1:\(secure.port)",
            plain: "HTTP 401 Unauthorized (through proxy http://***@127.0.0.1:\(proxy.port))"
        )

        try configure("http://carol:\(wrong)@127.0.0.1:\(resetting.port)")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"]).status == 0)
        try await checkFails(containing: "127.0.0.1:\(resetting.port)")
        let secureError = try await daemon.statusByApp()["secure"]?["lastError"] as? String ?? ""
        #expect(secureError.contains("http://***@127.0.0.1:\(resetting.port)"), "\(secureError)")

        #expect(daemon.process.isRunning)
        // The journal has the failures too, with the proxies named and no password.
        let journal = try await Executable.run("/usr/bin/journalctl", ["-o", "cat", "--no-pager", "_PID=\(daemon.process.pid)"]).standardOutput
        #expect(journal.contains("refused the request: HTTP 407"), "\(journal)")
        #expect(try await leaks(of: [password, wrong], in: daemon, journal: true).isEmpty)
        #expect(await daemon.stop() == 0)
    }
}

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
