import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

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
        // Four checks, two through tinyproxy: seconds beside Tests/busy and a build.
        #expect(await daemon.wait(30) { ["bypassed", "proxied", "direct", "redirected"].allSatisfy { daemon.app($0)?["lastSuccess"] != nil } }, "\(daemon.log)")
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
