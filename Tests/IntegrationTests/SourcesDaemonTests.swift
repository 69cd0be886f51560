import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// The sources Linux fleets have, with the real daemon: GitHub releases and
/// PyPI/npm documents from a loopback HTTPS server shaped as the services
/// answer (`Tests/Fixtures/sources`), and installed packages from dpkg's
/// database.
@Suite("ssvcd: GitHub releases, any JSON document, installed packages", .processSlot)
struct SourcesDaemonTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sources")

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    /// A request header, whatever the case of its name.
    func header(_ request: [String: Any], _ name: String) -> String? {
        (request["headers"] as? [String: String])?.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    @Test("github: the newest matching release, GitHub's headers and the token, the ETag reused, a rate limit retried at its reset, after a restart too")
    func github() async throws {
        let tls = try await TestCertificates()
        let server = try await VersionServer(scenario: ["body": try Self.fixture("github-releases.json"), "etag": "\"r1\""], tls: tls)
        let folder = try TemporaryFolder()
        let token = try folder.file("github.token", "ghp_test\n")
        let settings = "ca-file = \"\(tls.caCertificate)\""
        let apps = """
            [[app]]
            name = "billing"
            url = "\(server.url("/repos/acme/mono/releases"))"
            format = "github"
            tag-pattern = "^billing-v(.+)$"
            version = "2.4.0"
            bearer-token-file = "\(token)"
            """
        var daemon = try DaemonProcess(daemon: settings, apps: apps, folder: folder)
        #expect(await daemon.wait { daemon.app("billing")?["lastSuccess"] != nil }, "\(daemon.log)")
        let app = try #require(try await daemon.statusByApp()["billing"])
        #expect(app["status"] as? String == "update-available")
        #expect(app["latestVersion"] as? String == "2.4.1")
        #expect(app["availableSince"] as? String == "2026-11-18T10:00:00Z")
        #expect((app["description"] as? [String: Any])?["targetUrl"] as? String == "https://github.com/acme/mono/releases/tag/billing-v2.4.1")
        let first = try #require(server.requests().first)
        #expect(first["query"] as? String == "per_page=100")
        #expect(header(first, "Accept") == "application/vnd.github+json")
        #expect(header(first, "X-GitHub-Api-Version") == "2022-11-28")
        #expect(header(first, "Authorization") == "Bearer ghp_test")

        // The stored ETag: the server answers 304 and the release stays.
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "billing"]).status == 10)
        let second = try #require(server.requests().last)
        #expect(header(second, "If-None-Match") == "\"r1\"")
        #expect(try await daemon.statusByApp()["billing"]?["latestVersion"] as? String == "2.4.1")

        // A plain 403 is a failure like any other, retried with the backoff.
        try server.set(["status": 403, "body": #"{"message":"Forbidden"}"#, "headers": ["X-RateLimit-Remaining": "42"]])
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "billing"]).status == 10)
        let forbidden = try #require(try await daemon.statusByApp()["billing"])
        #expect(forbidden["lastError"] as? String == "HTTP 403 Forbidden", "\(forbidden)")
        #expect(forbidden["nextCheckReason"] as? String == "retry")

        // The rate limit exhausted: retried when it resets, and the time is kept.
        let reset = Int(Date().timeIntervalSince1970) + 900
        try server.set(["status": 403, "body": #"{"message":"API rate limit exceeded"}"#,
                        "headers": ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(reset)"]])
        let limited = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "billing"])
        #expect(limited.status == 10, "the last good answer still offers 2.4.1: \(limited.standardOutput)")
        let resetText = RFC3339.format(Date(timeIntervalSince1970: TimeInterval(reset)))
        let failing = try #require(try await daemon.statusByApp()["billing"])
        #expect(failing["lastError"] as? String == "HTTP 403 Forbidden: rate limit exhausted until \(resetText)", "\(failing)")
        #expect(failing["nextCheckReason"] as? String == "retry-after")
        #expect(failing["nextCheck"] as? String == resetText)
        #expect(failing["latestVersion"] as? String == "2.4.1", "the last good answer stays")
        #expect(await daemon.stop() == 0)
        #expect(daemon.app("billing")?["retryNotBefore"] as? String == resetText)
        daemon = try DaemonProcess(daemon: settings, apps: apps, folder: folder)
        #expect(await daemon.wait { (try? await daemon.statusByApp()["billing"]?["nextCheck"] as? String) == resetText }, "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    @Test("json: PyPI's and npm's documents read with pointers; a pointer to nothing fails the check naming it")
    func json() async throws {
        let tls = try await TestCertificates()
        let server = try await VersionServer(scenario: ["paths": [
            "/pypi/black/json": ["body": try Self.fixture("pypi-project.json")],
            "/left-pad/latest": ["body": try Self.fixture("npm-latest.json")],
        ]], tls: tls)
        let apps = """
            [[app]]
            name = "black"
            url = "\(server.url("/pypi/black/json"))"
            format = "json"
            version-pointer = "/info/version"
            date-pointer = "/urls/1/upload_time_iso_8601"
            url-pointer = "/info/release_url"
            version = "24.8.0"

            [[app]]
            name = "left-pad"
            url = "\(server.url("/left-pad/latest"))"
            format = "json"
            version-pointer = "/version"
            version = "1.3.0"

            [[app]]
            name = "mistyped"
            url = "\(server.url("/pypi/black/json"))"
            format = "json"
            version-pointer = "/info/versions"
            version = "24.8.0"
            """
        let daemon = try DaemonProcess(daemon: "ca-file = \"\(tls.caCertificate)\"", apps: apps)
        #expect(await daemon.wait { ["black", "left-pad", "mistyped"].allSatisfy { daemon.app($0)?["lastCheck"] != nil } }, "\(daemon.log)")
        let status = try await daemon.statusByApp()
        #expect(status["black"]?["status"] as? String == "update-available")
        #expect(status["black"]?["latestVersion"] as? String == "24.10.0")
        #expect(status["black"]?["availableSince"] as? String == "2024-10-07T19:44:43Z")
        #expect((status["black"]?["description"] as? [String: Any])?["targetUrl"] as? String == "https://pypi.org/project/black/24.10.0/")
        #expect(status["left-pad"]?["status"] as? String == "up-to-date")
        #expect(status["mistyped"]?["lastError"] as? String == "response rejected: version-pointer '/info/versions': refers to nothing in the document")
        #expect(header(try #require(server.requests().first), "Accept") == "application/json")
        #expect(await daemon.stop() == 0)
    }

    @Test("version-package: a real installed package as dpkg-query sees it")
    func realPackage() async throws {
        let expected = try await Executable.run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "dpkg"]).standardOutput
        try #require(!expected.isEmpty)
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"99.0"}"#))
        let daemon = try DaemonProcess(apps: "[[app]]\nname = \"dpkg\"\nurl = \"\(document)\"\nversion-package = \"dpkg\"\n", folder: folder)
        #expect(await daemon.wait { daemon.app("dpkg")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(daemon.app("dpkg")?["currentVersion"] as? String == expected)
        #expect(try await daemon.statusByApp()["dpkg"]?["status"] as? String == "update-available", "debian scheme: \(expected) < 99.0")
        #expect(await daemon.stop() == 0)
        let evaluate = try await Executable.run("ssvcctl", ["evaluate", "--response", String(document.dropFirst(7)), "--version-package", "dpkg", "--json"])
        #expect(evaluate.standardOutput.contains(#""currentVersion":"\#(expected)""#), "\(evaluate.standardOutput)")
    }

    @Test("version-package: each dpkg state of a status file (DPKG_ADMINDIR), as dpkg-query reads it, and an upgrade seen at the next check")
    func statusFile() async throws {
        let folder = try TemporaryFolder()
        let admin = folder.url.appendingPathComponent("dpkg").path
        try FileManager.default.createDirectory(atPath: admin, withIntermediateDirectories: true)
        let status = try Self.fixture("dpkg-status")
        _ = try folder.file("dpkg/status", status)
        let document = "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"2.4.5"}"#))
        let names = ["billing-agent", "half-done", "removed-tool", "unpacked-only", "waiting-trigger", "libmulti", "libskew", "libskew:i386"]
        let apps = names.enumerated().map { index, name in
            "[[app]]\nname = \"p\(index)\"\nurl = \"\(document)\"\nversion-package = \"\(name)\"\nschedule = \"never\"\n"
        }.joined(separator: "\n")
        let daemon = try DaemonProcess(apps: apps, environment: ["DPKG_ADMINDIR": admin], folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"]).status != 1)
        let apps2 = try await daemon.statusByApp()
        for (index, name) in names.enumerated() {
            let query = try await Executable.run("/usr/bin/dpkg-query", ["--admindir=\(admin)", "-W", "-f=${db:Status-Abbrev}|${Version}\n", name])
            let lines = query.standardOutput.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false) }
            let usable = lines.filter { $0.first.map { $0.hasPrefix("ii") || $0.hasPrefix("it") || $0.hasPrefix("iW") } == true }
            let app = try #require(apps2["p\(index)"])
            if usable.count >= 1 && Set(usable.map { $0.last ?? "" }).count == 1 {
                #expect(app["currentVersion"] as? String == usable.first.map { String($0.last ?? "") }, "\(name): \(app)")
                #expect(app["consecutiveFailures"] as? Int == 0, "\(name): \(app)")
            } else {
                #expect(app["consecutiveFailures"] as? Int == 1, "\(name): \(app)")
                #expect((app["lastError"] as? String)?.hasPrefix("version-package: package \(name) is ") == true, "\(name): \(app)")
            }
        }
        #expect(apps2["p2"]?["lastError"] as? String == "version-package: package removed-tool is not installed (dpkg state: config-files)")
        #expect(apps2["p0"]?["status"] as? String == "ahead", "1:2.4.0-1 is above 2.4.5 in dpkg's order (the epoch)")

        // dpkg upgrades the package: it writes a new file and renames it over the old.
        _ = try folder.file("dpkg/status-new", status.replacingOccurrences(of: "Version: 1:2.4.0-1", with: "Version: 1:2.5.0-1"))
        #expect(rename(admin + "/status-new", admin + "/status") == 0)
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "p0"]).status == 0)
        #expect(try await daemon.statusByApp()["p0"]?["currentVersion"] as? String == "1:2.5.0-1")
        #expect(await daemon.stop() == 0)
    }
}
