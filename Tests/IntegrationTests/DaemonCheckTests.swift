import Foundation
import SSVCTestSupport
import Testing

let goodBody = #"{"SSVCLatestVersionKey":"1.1","SSVCLatestVersionNumber":17858560,"SSVCMinimumSupportedVersionNumber":0}"#

func appTable(_ name: String, url: String, extra: String = "") -> String {
    """
    [[app]]
    name = "\(name)"
    url = "\(url)"
    schedule = "daily"
    version = "1.0"
    \(extra)
    """
}

@Suite("ssvcd: checks against a real server", .processSlot)
struct DaemonCheckTests {
    @Test("a first check fetches, keeps the response in the state file and reports it")
    func firstCheck() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let daemon = try DaemonProcess(apps: appTable("first", url: server.url("/ssvc?channel=stable"), extra: "query = { x = \"1 2\" }"))
        #expect(await daemon.wait { daemon.app("first")?["lastSuccess"] != nil }, "\(daemon.log)")
        let app = try #require(daemon.app("first"))
        #expect(app["response"] as? String == goodBody)
        #expect((app["decision"] as? [String: Any])?["latestVersion"] as? String == "1.1")
        #expect(app["consecutiveFailures"] as? Int == 0)

        let requests = server.requests()
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request["query"] as? String == "channel=stable&SSVCLatestVersionKey=1.0&SSVCLatestVersionNumber=16809984&SSVCLanguage=en&SSVCCountry=&SSVCClientProtocolVersion=1&x=1%202")
        let headers = try #require(request["headers"] as? [String: String])
        #expect(headers["User-Agent"]?.hasPrefix("ssvcd/") == true)
        #expect(headers["Accept"] == "application/json")

        let line = try #require(daemon.lines(for: "first").first)
        #expect(line.hasPrefix("<5>first: update available: 1.0 → 1.1"))
        #expect(line.contains("MESSAGE_ID=cdf3676b0e8e47a5b0d5dad2d7489f07"))
        #expect(line.contains("SSVC_STATUS=update-available"))
        #expect(await daemon.stop() == 0)
    }

    @Test("an app URL with an IPv6 literal, http://[::1]:PORT/…, is fetched")
    func ipv6Literal() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody], host: "::1")
        #expect(server.url("/v6").hasPrefix("http://[::1]:"))
        let daemon = try DaemonProcess(apps: appTable("six", url: server.url("/v6")))
        #expect(await daemon.wait { daemon.app("six")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(server.requests().first?["path"] as? String == "/v6")
        #expect(await daemon.stop() == 0)
    }

    @Test("a name with addresses of both families reaches a server listening on either (happy eyeballs)")
    func bothFamilies() async throws {
        let onlyFour = try await VersionServer(scenario: ["body": goodBody])
        let onlySix = try await VersionServer(scenario: ["body": goodBody], host: "::1")
        let folder = try TemporaryFolder()
        // The daemon alone sees this hosts file, in a mount namespace of its own.
        let hosts = try folder.file("hosts", "::1 both.ssvc.test\n127.0.0.1 both.ssvc.test\n127.0.0.1 localhost\n")
        let apps = appTable("four", url: "http://both.ssvc.test:\(onlyFour.port)/4") + "\n"
            + appTable("six", url: "http://both.ssvc.test:\(onlySix.port)/6")
        let wrapper = ["/usr/bin/unshare", "--mount", "--", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$@\"", hosts]
        let daemon = try DaemonProcess(folder: folder, config: nil, daemon: "", apps: apps, arguments: [], environment: [:], wrapper: wrapper)
        #expect(await daemon.wait(15) { daemon.app("four")?["lastSuccess"] != nil && daemon.app("six")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(onlyFour.requests().count == 1)
        #expect(onlySix.requests().count == 1)
        #expect(await daemon.stop() == 0)
    }

    @Test("at most 8 checks fetch at once, across hosts: 24 apps due together on three servers")
    func concurrencyLimit() async throws {
        // The HTTP client allows 8 connections per host; three servers would
        // let 24 requests overlap without the daemon's own limit.
        let delay = 0.5
        var servers: [VersionServer] = []
        for _ in 0..<3 { servers.append(try await VersionServer(scenario: ["body": goodBody, "delay": delay])) }
        let apps = (0..<24).map { appTable("app\($0)", url: servers[$0 % 3].url("/v")) }.joined(separator: "\n")
        let daemon = try DaemonProcess(apps: apps)
        #expect(await daemon.wait(30) { servers.reduce(0) { $0 + $1.requests().count } == 24 }, "\(daemon.log)")
        let starts = servers.flatMap { $0.requests().compactMap { $0["start"] as? Double } }.sorted()
        let mostAtOnce = starts.map { start in starts.filter { $0 <= start && $0 > start - delay + 0.05 }.count }.max() ?? 0
        #expect(mostAtOnce <= 8, "requests overlapping: \(mostAtOnce)")
        #expect(mostAtOnce >= 4, "the checks did not run side by side: \(mostAtOnce)")
        #expect(await daemon.wait(10) { (0..<24).allSatisfy { daemon.app("app\($0)")?["lastSuccess"] != nil } })
        #expect(await daemon.stop() == 0)
    }

    @Test("SIGTERM with checks waiting for a slot: ssvcd stops at once, and the waiting ones never fetch")
    func stopWhileWaiting() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody, "delay": 30])
        let apps = (0..<20).map { appTable("app\($0)", url: server.url("/v")) }.joined(separator: "\n")
        let daemon = try DaemonProcess(apps: apps)
        #expect(await daemon.wait(10) { server.requests().count == 8 }, "\(daemon.log)")
        #expect(await daemon.stop() == 0)
        // Waiting for the fetches would take the server's 30 s (killed at 10 s).
        #expect(daemon.stopSeconds < 9, "\(daemon.stopSeconds) s")
        #expect(server.requests().count == 8)
    }

    @Test("a restart resumes: an ETag is sent again and 304 keeps the stored response")
    func etag() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody, "etag": "\"v1\""])
        let folder = try TemporaryFolder()
        let apps = appTable("etag", url: server.url("/ssvc"))
        let first = try DaemonProcess(apps: apps, folder: folder)
        #expect(await first.wait { first.app("etag")?["etag"] as? String == "\"v1\"" })
        #expect(await first.stop() == 0)
        try ageState(in: first.stateDirectory, by: 3 * 86_400)

        let second = try DaemonProcess(apps: apps, folder: folder)
        #expect(await second.wait { server.requests().count == 2 && second.lines(for: "etag").count == 1 })
        let headers = try #require(server.requests().last?["headers"] as? [String: String])
        #expect(headers["If-None-Match"] == "\"v1\"")
        let app = try #require(second.app("etag"))
        #expect(app["response"] as? String == goodBody)
        #expect(app["consecutiveFailures"] as? Int == 0)
        #expect(await second.stop() == 0)
    }

    /// Checks once against a good server, then restarts against a hostile one.
    func failAfterSuccess(_ hostile: [String: Any], daemonSettings: String = "timeout-seconds = 2") async throws -> (DaemonProcess, VersionServer, TemporaryFolder) {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        let apps = appTable("hostile", url: server.url("/ssvc"))
        let first = try DaemonProcess(daemon: daemonSettings, apps: apps, folder: folder)
        #expect(await first.wait { first.app("hostile")?["lastSuccess"] != nil })
        #expect(await first.stop() == 0)
        try ageState(in: first.stateDirectory, by: 3 * 86_400)
        try server.set(hostile)
        let second = try DaemonProcess(daemon: daemonSettings, apps: apps, folder: folder)
        #expect(await second.wait(15) { (second.app("hostile")?["consecutiveFailures"] as? Int ?? 0) >= 1 }, "\(second.log)")
        return (second, server, folder)
    }

    @Test("a hostile server: the failure counts, the last good response stays, a retry is planned, the daemon lives", arguments: [
        (#"{"status": 500, "body": "oops"}"#, "HTTP 500"),
        (#"{"mode": "hang"}"#, "took longer than timeout-seconds (2 s)"),
        (#"{"mode": "slow-headers", "delay": 0.3}"#, "took longer than timeout-seconds (2 s)"),
        (#"{"mode": "huge-headers", "size": 4000000}"#, "sent more header bytes than allowed (80 KiB)"),
        (#"{"mode": "redirect-chain"}"#, "more than 5 redirects"),
        (#"{"mode": "redirect-chain", "close": true}"#, "more than 5 redirects"),
        (#"{"mode": "redirect-loop", "close": true}"#, "redirect loop at http://127.0.0.1:"),
        (#"{"mode": "redirect", "location": "http://127.0.0.1:65536/doc.json"}"#, "refused a redirect to http://127.0.0.1:65536/doc.json: port 65536 is not from 1 to 65535"),
        (#"{"mode": "redirect", "location": "http://[::1]:99999/doc.json"}"#, "port 99999 is not from 1 to 65535"),
        (#"{"status": 503, "body": "", "headers": {"Retry-After": "Sun, 06 Nov 300000000000 08:49:37 GMT"}}"#, "HTTP 503"),
        (#"{"status": 503, "body": "", "headers": {"Retry-After": "Sun, 06 Nov -300000000000 08:49:37 GMT"}}"#, "HTTP 503"),
        (#"{"mode": "reset"}"#, "reading the response"),
        (#"{"body": "{not json"}"#, "response rejected: not valid JSON"),
        (#"{"body": "{\"SSVCLatestVersionNumber\":-1}"}"#, "SSVCLatestVersionNumber: expected an unsigned integer, found -1"),
        (#"{"mode": "redirect-loop"}"#, "redirect loop"),
        (#"{"status": 404, "body": ""}"#, "HTTP 404"),
    ])
    func hostile(scenario: String, error: String) async throws {
        let hostile = try #require(try JSONSerialization.jsonObject(with: Data(scenario.utf8)) as? [String: Any])
        let (daemon, _, _) = try await failAfterSuccess(hostile)
        let app = try #require(daemon.app("hostile"))
        #expect((app["lastError"] as? String)?.contains(error) == true, "\(app["lastError"] ?? "none")")
        #expect(app["response"] as? String == goodBody)
        #expect((app["decision"] as? [String: Any])?["latestVersion"] as? String == "1.1")
        let line = try #require(daemon.lines(for: "hostile").last)
        #expect(line.hasPrefix("<4>hostile: check failed: "))
        #expect(line.contains("MESSAGE_ID=740a6988fa734f58af8cffd08e9c9f66"))
        #expect(line.contains("SSVC_STATUS=update-available"))
        let lastCheck = try #require((app["lastCheck"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        let nextText = try #require(line.split(separator: " ").first { $0.hasPrefix("SSVC_NEXT_CHECK=") }?.dropFirst(16))
        let next = try #require(ISO8601DateFormatter().date(from: String(nextText.prefix { $0 != "]" })))
        #expect((29...61).contains(next.timeIntervalSince(lastCheck)), "retry \(next.timeIntervalSince(lastCheck)) s after")
        #expect(daemon.process.isRunning)
        #expect(await daemon.stop() == 0)
    }

    @Test("a redirect's scheme is read without case: HTTP://host is followed as http")
    func upperCaseRedirect() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        try server.set(["mode": "redirect", "location": server.url("/doc.json").replacingOccurrences(of: "http://", with: "HTTP://"),
                        "paths": ["/doc.json": ["mode": "normal"]]])
        let daemon = try DaemonProcess(apps: appTable("upper", url: server.url("/ssvc")))
        #expect(await daemon.wait { daemon.app("upper")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(server.requests().contains { $0["path"] as? String == "/doc.json" })
        #expect(await daemon.stop() == 0)
    }

    @Test("503 with Retry-After: 120 plans the retry two minutes on, and keeps it in the state")
    func retryAfter() async throws {
        let (daemon, _, _) = try await failAfterSuccess(["status": 503, "body": "", "headers": ["Retry-After": "120"]])
        let app = try #require(daemon.app("hostile"))
        let lastCheck = try #require((app["lastCheck"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        let notBefore = try #require((app["retryNotBefore"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(abs(notBefore.timeIntervalSince(lastCheck) - 120) <= 2)
        #expect(daemon.lines(for: "hostile").last?.contains("HTTP 503") == true)
        #expect(await daemon.stop() == 0)
    }

    @Test("a 50 MiB body is refused while it streams: the resident memory does not follow it")
    func hugeBody() async throws {
        let (control, _, _) = try await failAfterSuccess(["status": 404, "body": ""], daemonSettings: "timeout-seconds = 10")
        let baseline = control.residentKiB
        await control.stop()
        let (daemon, _, _) = try await failAfterSuccess(["mode": "big", "size": 50 << 20], daemonSettings: "timeout-seconds = 10")
        let app = try #require(daemon.app("hostile"))
        #expect((app["lastError"] as? String)?.contains("larger than max-response-bytes (1048576)") == true)
        #expect(app["response"] as? String == goodBody)
        let grown = daemon.residentKiB - baseline
        #expect(grown < 8 * 1024, "RSS grew by \(grown) KiB over a failed small check after a 50 MiB body")
        #expect(await daemon.stop() == 0)
    }

    @Test("https with a CA given by ca-file works; without it the certificate is not trusted")
    func https() async throws {
        let certificates = try await TestCertificates()
        let server = try await VersionServer(scenario: ["body": goodBody], tls: certificates)
        let trusted = try DaemonProcess(daemon: "timeout-seconds = 5\nca-file = \"\(certificates.caCertificate)\"", apps: appTable("tls", url: server.url("/ssvc")))
        #expect(await trusted.wait { trusted.app("tls")?["lastSuccess"] != nil }, "\(trusted.log)")
        #expect(await trusted.stop() == 0)

        let untrusted = try DaemonProcess(daemon: "timeout-seconds = 5", apps: appTable("tls", url: server.url("/ssvc")))
        #expect(await untrusted.wait { untrusted.app("tls")?["lastError"] != nil })
        #expect((untrusted.app("tls")?["lastError"] as? String)?.contains("certificate is not trusted") == true, "\(untrusted.log)")
        #expect(await untrusted.stop() == 0)
    }

    @Test("a redirect from https to http is refused")
    func downgrade() async throws {
        let certificates = try await TestCertificates()
        let server = try await VersionServer(scenario: ["mode": "https-to-http"], tls: certificates)
        let daemon = try DaemonProcess(daemon: "ca-file = \"\(certificates.caCertificate)\"", apps: appTable("down", url: server.url("/ssvc")))
        #expect(await daemon.wait { daemon.app("down")?["lastError"] != nil })
        #expect((daemon.app("down")?["lastError"] as? String)?.hasPrefix("refused a redirect from https to http://") == true)
        #expect(await daemon.stop() == 0)
    }

    @Test("a running version that is no version fails the check naming the text, and never reads as ahead; a leading v is dropped")
    func runningVersionThatIsNoVersion() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"2.0"}"#))
        let apps = [
            appTable("words", url: document).replacingOccurrences(of: "version = \"1.0\"", with: #"version-command = ["/bin/echo", "myagent-1.0"]"#),
            appTable("vee", url: document).replacingOccurrences(of: "version = \"1.0\"", with: #"version-command = ["/bin/echo", "v1.0"]"#),
        ].joined(separator: "\n")
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { daemon.app("words")?["lastCheck"] != nil && daemon.app("vee")?["lastSuccess"] != nil }, "\(daemon.log)")
        let status = try await daemon.statusByApp()
        #expect(status["words"]?["lastError"] as? String == "running version 'myagent-1.0' is not a valid dotted version: does not begin with a digit (after an optional leading 'v')", "\(status["words"] ?? [:])")
        #expect(status["words"]?["status"] as? String == "unknown")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "words"]).status == 12, "a failed check, never 0")
        #expect(status["vee"]?["currentVersion"] as? String == "1.0")
        #expect(status["vee"]?["status"] as? String == "update-available")
        #expect(await daemon.stop() == 0)

        for bad in ["banana", ""] {
            let path = try folder.file("bad.toml", "[[app]]\nname = \"b\"\nurl = \"https://o/v\"\nversion = \"\(bad)\"\n")
            let result = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
            #expect(result.status == 78)
            #expect(result.standardError.contains("app.version: "), "\(result.standardError)")
        }
    }
}
