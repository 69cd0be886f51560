import Foundation
import SSVCTestSupport
import Testing

/// End of life and restart pending with the built binaries (SPEC §15,
/// issue 53): endoflife.date's recorded answers served from a real server
/// on loopback, read by a real daemon, shown by `ssvcctl`; and
/// `ssvcctl evaluate --lifecycle` on the same answers.
@Suite("ssvcd: lifecycle", .processSlot)
struct LifecycleIntegrationTests {
    static let answers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/endoflife")

    static func answer(_ name: String) throws -> String {
        try String(contentsOf: answers.appendingPathComponent(name), encoding: .utf8)
    }

    func ssvcctl(_ daemon: DaemonProcess, _ arguments: [String]) async throws -> CommandResult {
        try await Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments)
    }

    /// A release answer whose text is hostile: a label with escapes, a
    /// release whose name carries a bidi override (skipped, named escaped).
    static let hostile = #"{"schema_version":"1.2.0","result":{"name":"evil","releases":["#
        + #"{"name":"1\u202e.0","isEol":false,"eolFrom":null},"#
        + #"{"name":"1","label":"\u001b]0;PWNED\u0007","isEol":false,"eolFrom":"2099-01-01","latest":{"name":"1.9","date":null,"link":null}}]}}"#

    @Test("a real daemon over a real server: end of life (exit 14), newest in the release (10), a restart pending (15); every output says so, hostile text escaped")
    func daemon() async throws {
        let folder = try TemporaryFolder()
        let server = try await VersionServer(scenario: [
            "paths": [
                "/v.json": ["body": #"{"SSVCLatestVersionKey":"1.0"}"#],
                "/api/v1/products/aws-lambda/": ["body": try Self.answer("aws-lambda.json"), "etag": "\"lambda-1\""],
                "/api/v1/products/go/": ["body": try Self.answer("go.json")],
                "/api/v1/products/evil/": ["body": Self.hostile],
            ],
        ])
        let running = try folder.file("running", "1.0\n")
        let installed = try folder.file("installed", "1.1\n")
        let prom = folder.url.appendingPathComponent("ssvc.prom").path
        let template = server.url("/api/v1/products/{product}/")
        try FileManager.default.createDirectory(atPath: folder.url.appendingPathComponent("hooks.d").path, withIntermediateDirectories: true)
        let recorded = folder.url.appendingPathComponent("recorded").path
        let hook = try folder.file("hooks.d/10-record", """
            #!/bin/sh
            case "$SSVC_EVENT" in lifecycle|restart-pending)
              echo "$SSVC_EVENT $SSVC_APP $SSVC_LIFECYCLE $SSVC_END_OF_LIFE $SSVC_RESTART_PENDING $SSVC_INSTALLED_VERSION" >> '\(recorded)';;
            esac
            exit 0
            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let daemon = try DaemonProcess(daemon: "metrics-file = \"\(prom)\"\nhooks-dir = \"hooks.d\"", apps: """
            [[app]]
            name = "lambda"
            schedule = "never"
            version = "18.20.4"
            lifecycle = "endoflife"
            lifecycle-url = "\(template)"
            lifecycle-product = "aws-lambda"
            lifecycle-release = "nodejs18.x"

            [[app]]
            name = "go"
            schedule = "never"
            version = "1.24.2"
            lifecycle = "endoflife"
            lifecycle-url = "\(template)"

            [[app]]
            name = "evil"
            schedule = "never"
            version = "1.2"
            lifecycle = "endoflife"
            lifecycle-url = "\(template)"

            [[app]]
            name = "agent"
            url = "\(server.url("/v.json"))"
            schedule = "never"
            version-file = "\(running)"
            installed-version-file = "\(installed)"
            """, folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        let check = try await ssvcctl(daemon, ["check"])
        #expect(check.status == 14, "end of life outranks a restart and an update\n\(check.standardOutput)\(check.standardError)\n\(daemon.log)")
        #expect(try await ssvcctl(daemon, ["status", "go"]).status == 10)
        #expect(try await ssvcctl(daemon, ["status", "agent"]).status == 15)
        #expect(try await ssvcctl(daemon, ["status", "evil"]).status == 10, "1.9 is the newest of release 1")
        let text = try await ssvcctl(daemon, ["status"])
        #expect(text.standardOutput.contains(
            "lambda: lifecycle end-of-life: release nodejs18.x (active support until 2025-09-01; end of life 2026-03-09), read "
        ), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("go: 1.24.6 is the newest of release 1.24"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("agent: restart pending: 1.1 installed, 1.0 running, since "), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("evil: 1.9 is the newest of release 1; 1 releases of the end-of-life answer skipped: result.releases[0].name: a release name holding U+202E, a control or formatting character"), "\(text.standardOutput)")
        #expect(!text.standardOutput.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x07 }, "no raw server text on a terminal")

        let apps = try await daemon.statusByApp()
        #expect(apps["lambda"]?["lifecycle"] as? String == "end-of-life")
        #expect(apps["lambda"]?["endOfLife"] as? String == "2026-03-09" && apps["lambda"]?["lifecycleRelease"] as? String == "nodejs18.x")
        #expect(apps["go"]?["status"] as? String == "update-available" && apps["go"]?["latestVersion"] as? String == "1.24.6")
        let pending = try #require(apps["agent"]?["restartPending"] as? [String: Any])
        #expect(pending["installed"] as? String == "1.1" && pending["running"] as? String == "1.0" && pending["overdue"] as? Bool == false)

        let nagios = try await ssvcctl(daemon, ["status", "--nagios"])
        #expect(nagios.status == 2)
        #expect(nagios.standardOutput.hasPrefix("SSVC CRITICAL - end of life: lambda (release nodejs18.x, end of life 2026-03-09) |"), "\(nagios.standardOutput)")
        #expect(nagios.standardOutput.contains("'end_of_life'=1;;;0; 'restart_pending'=1;;;0;"), "\(nagios.standardOutput)")
        let agentOnly = try await ssvcctl(daemon, ["status", "--nagios", "agent"])
        #expect(agentOnly.status == 1 && agentOnly.standardOutput.hasPrefix("SSVC WARNING - restart pending: agent (1.1 installed, 1.0 running, since "), "\(agentOnly.standardOutput)")
        let banner = try await ssvcctl(daemon, ["motd"])
        #expect(banner.standardOutput.contains("  lambda: past its end of life (2026-03-09)"), "\(banner.standardOutput)")
        #expect(banner.standardOutput.contains("  agent: restart pending (1.1 installed)"), "\(banner.standardOutput)")

        #expect(await daemon.wait { (try? String(contentsOfFile: prom, encoding: .utf8))?.contains(#"ssvc_app_restart_pending{app="agent"} 1"#) == true })
        let metrics = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(metrics.contains(#"ssvc_app_lifecycle{app="lambda",state="end-of-life"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"ssvc_app_end_of_life_timestamp_seconds{app="lambda"} 1773100800"#), "\(metrics)")
        let said = daemon.lines(for: "lambda").filter { $0.contains("MESSAGE_ID=0c7cc3ad243b4f0b97b6c1271e3dd68f") }
        #expect(said.count == 1 && said.first?.contains("lambda: release nodejs18.x of 18.20.4 is past its end of life (2026-03-09)") == true, "\(daemon.log)")
        #expect(said.first?.contains("SSVC_LIFECYCLE=end-of-life") == true && said.first?.contains("SSVC_END_OF_LIFE=2026-03-09") == true)

        // Hooks: one lifecycle event per app, one restart-pending event.
        let lines = { ((try? String(contentsOfFile: recorded, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(await daemon.wait(30) { lines().count >= 4 }, "\(lines())\n\(daemon.log)")
        #expect(lines().contains("lifecycle lambda end-of-life 2026-03-09  "), "\(lines())")
        #expect(lines().contains { $0.hasPrefix("lifecycle go supported ") }, "\(lines())")
        #expect(lines().contains("restart-pending agent   1 1.1"), "\(lines())")

        // Revalidated, not read again; checked again, nothing said again.
        #expect(try await ssvcctl(daemon, ["check", "lambda"]).status == 14)
        let asked = server.requests().filter { $0["path"] as? String == "/api/v1/products/aws-lambda/" }
        #expect((asked.last?["headers"] as? [String: String])?["If-None-Match"] == "\"lambda-1\"", "\(asked)")
        #expect(daemon.lines(for: "lambda").filter { $0.contains("MESSAGE_ID=0c7cc3ad243b4f0b97b6c1271e3dd68f") }.count == 1)

        // The service restarts on 1.1: no restart pending, said once.
        try "1.1\n".write(toFile: running, atomically: true, encoding: .utf8)
        #expect(try await ssvcctl(daemon, ["check", "agent"]).status == 0)
        #expect(daemon.lines(for: "agent").contains { $0.contains("agent: no restart pending: 1.1 runs, 1.1 was installed") }, "\(daemon.log)")
    }

    @Test("ssvcctl evaluate --lifecycle answers the recorded answers as the daemon decides", arguments: [
        (["go.json", "--version", "1.23.4"], 14, "end-of-life: 1.23.4 is in release 1.23, past its end of life (2025-08-12)"),
        (["go.json", "--version", "1.24.6"], 0, "supported: 1.24.6 is in release 1.24"),
        (["go.json", "--version", "1.24.2"], 0, "  newest in the release: 1.24.6 (newer than 1.24.2)"),
        (["go.json", "--version", "2.0.0"], 0, "unknown: no release of the 16 read is 2.0.0 or a prefix of it: set lifecycle-release"),
        (["go-1.24.json", "--version", "1.25.0"], 0, "unknown: the answer is of release 1.24, not of 1.25.0"),
        (["ubuntu-22.04.json", "--version", "22.04.5", "--now", "2026-12-31T12:00:00Z"], 0, "security-only: 22.04.5 is in release 22.04, whose active support ended 2024-09-30; end of life after 2027-04-01"),
        (["ubuntu-22.04.json", "--version", "22.04.5", "--now", "2027-01-01T00:00:00Z"], 0, "ending: 22.04.5 is in release 22.04, whose end of life is 2027-04-01"),
        (["ubuntu-22.04.json", "--version", "22.04.5", "--now", "2027-01-01T00:00:00Z", "--lifecycle-warn-days", "80"], 0, "security-only: "),
        (["ubuntu-22.04.json", "--version", "22.04.5", "--now", "2027-04-01T23:59:59Z"], 0, "ending: "),
        (["ubuntu-22.04.json", "--version", "22.04.5", "--now", "2027-04-02T00:00:00Z"], 14, "  extended support until 2032-04-09"),
        (["aws-lambda.json", "--version", "18.20.4", "--release", "nodejs18.x", "--now", "2026-11-28T00:00:00Z"], 14, "past its end of life (2026-03-09)"),
        (["aws-lambda.json", "--version", "7.0.1", "--release", "dotnet7", "--now", "2025-01-01T00:00:00Z"], 14, "end-of-life: 7.0.1 is in release dotnet7, past its end of life"),
    ] as [([String], Int32, String)])
    func evaluate(arguments: [String], status: Int32, expected: String) async throws {
        let path = Self.answers.appendingPathComponent(arguments[0]).path
        let result = try await Executable.run("ssvcctl", ["evaluate", "--lifecycle", path] + arguments.dropFirst())
        #expect(result.status == status, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains(expected), "\(result.standardOutput)")
    }

    @Test("ssvcctl evaluate --lifecycle --json gives App's fields; bad input is an error naming it")
    func evaluateEdges() async throws {
        let go = Self.answers.appendingPathComponent("go.json").path
        let json = try await Executable.run("ssvcctl", ["evaluate", "--lifecycle", go, "--version", "1.23.4", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["lifecycle"] as? String == "end-of-life" && object["endOfLife"] as? String == "2025-08-12")
        #expect(object["lifecycleRelease"] as? String == "1.23" && object["latestInRelease"] as? String == "1.23.12")
        let folder = try TemporaryFolder()
        let html = try folder.file("eol.html", "<html><body>502 Bad Gateway</body></html>")
        let cases: [([String], Int32, String)] = [
            (["--lifecycle", html, "--version", "1.0"], 1, "not valid JSON"),
            (["--lifecycle", folder.url.path, "--version", "1.0"], 1, "is a directory"),
            (["--lifecycle", "https://endoflife.date/api/v1/products/go/", "--version", "1.0"], 1, "ssvcctl evaluates offline"),
            (["--lifecycle", go], 64, "--lifecycle needs --version"),
            (["--lifecycle", go, "--version", "1.0", "--lifecycle-warn-days=-1"], 64, "--lifecycle-warn-days: must be from 0 to 36500, found -1"),
            (["--lifecycle", go, "--version", "1.0", "--release", ""], 64, "--release: an empty release name"),
            (["--response", go, "--version", "1.0", "--release", "1.23"], 64, "--release and --lifecycle-warn-days go with --lifecycle"),
        ]
        for (arguments, status, expected) in cases {
            let result = try await Executable.run("ssvcctl", ["evaluate"] + arguments)
            #expect(result.status == status, "\(arguments): \(result.standardOutput)\(result.standardError)")
            #expect((result.standardOutput + result.standardError).contains(expected), "\(arguments): \(result.standardError)")
        }
    }

    @Test("restart pending with the package and the command readers: dpkg's installed version (DPKG_ADMINDIR) and a program's output against the running version")
    func readers() async throws {
        let folder = try TemporaryFolder()
        let admin = folder.url.appendingPathComponent("dpkg").path
        try FileManager.default.createDirectory(atPath: admin, withIntermediateDirectories: true)
        // billing-agent 1:2.4.0-1 is installed; the service still runs 1:2.3.0-1.
        let status = try String(contentsOf: Self.answers.deletingLastPathComponent().appendingPathComponent("sources/dpkg-status"), encoding: .utf8)
        _ = try folder.file("dpkg/status", status)
        let document = "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"2.4.0"}"#))
        let running = try folder.file("running", "1:2.3.0-1\n")
        let daemon = try DaemonProcess(apps: """
            [[app]]
            name = "packaged"
            url = "\(document)"
            schedule = "never"
            version-file = "\(running)"
            version-scheme = "debian"
            installed-version-package = "billing-agent"

            [[app]]
            name = "commanded"
            url = "\(document)"
            schedule = "never"
            version = "2.4.0"
            installed-version-command = ["/bin/echo", "v2.4.0"]
            """, environment: ["DPKG_ADMINDIR": admin], folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        let check = try await ssvcctl(daemon, ["check"])
        #expect(check.status == 15, "\(check.standardOutput)\(check.standardError)")
        let apps = try await daemon.statusByApp()
        let pending = try #require(apps["packaged"]?["restartPending"] as? [String: Any], "\(apps)")
        #expect(pending["installed"] as? String == "1:2.4.0-1" && pending["running"] as? String == "1:2.3.0-1")
        #expect(apps["commanded"]?["restartPending"] == nil, "v2.4.0 is 2.4.0 in the dotted scheme: \(apps["commanded"] ?? [:])")
        #expect(apps["commanded"]?["consecutiveFailures"] as? Int == 0)
        // The service restarts on the installed version.
        try "1:2.4.0-1\n".write(toFile: running, atomically: true, encoding: .utf8)
        #expect(try await ssvcctl(daemon, ["check"]).status == 0)
    }
}
