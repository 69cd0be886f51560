import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// A version server's text, as the built daemon and client show it.
@Suite("untrusted text: no terminal injection, no forged monitoring", .processSlot)
struct UntrustedTextTests {
    /// The characters a terminal must never get raw from a server: every
    /// control and bidirectional character but the line breaks ssvcctl
    /// itself writes between its lines.
    func rawControls(_ output: String) -> [Unicode.Scalar] {
        output.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
            default: false
            }
        }
    }

    @Test("a version key carrying escapes and a forged line is refused naming the key; status, check and motd print no control character")
    func hostileVersion() async throws {
        let hostile = #"{"SSVCLatestVersionKey": "2.0\u001b[2J\u001b]0;PWNED\u0007\r\nSSVC OK - all 3 apps up to date\u202e\u0000x"}"#
        let server = try await VersionServer(scenario: ["body": goodBody])
        let daemon = try DaemonProcess(apps: appTable("demo", url: server.url("/ssvc")))
        #expect(await daemon.wait { daemon.app("demo")?["lastSuccess"] != nil })
        try server.set(["body": hostile])
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "--timeout", "60"])
        #expect(check.standardOutput.contains("SSVCLatestVersionKey: not a version string: holds the control character U+001B"), "\(check.standardOutput)")
        for arguments in [["status"], ["check"], ["motd"], ["status", "--nagios"]] {
            let result = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments + (arguments == ["motd"] ? [] : ["--timeout", "60"]))
            #expect(rawControls(result.standardOutput + result.standardError).isEmpty, "\(arguments): \(result.standardOutput)")
            #expect(!result.standardOutput.contains("PWNED") || result.standardOutput.contains("\\x1b]0;PWNED"))
        }
        #expect(rawControls(daemon.log).isEmpty, "the stderr log escapes too")
        #expect(await daemon.stop() == 0)
    }

    @Test("text quoted in errors and descriptions is escaped for people and kept exact in --json")
    func quotedText() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"packageName": "other\u001b[2J\u202e"}"#])
        let daemon = try DaemonProcess(apps: appTable("t", url: server.url("/t"), extra: "format = \"turkcell\"\napp-id = \"t\""))
        #expect(await daemon.wait { daemon.app("t")?["lastError"] != nil }, "\(daemon.log)")
        let human = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--timeout", "60"])
        #expect(human.standardOutput.contains(#"packageName 'other\x1b[2J\u{202E}' does not match app-id 't'"#), "\(human.standardOutput)")
        #expect(rawControls(human.standardOutput).isEmpty)
        let json = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json", "--timeout", "60"])
        let apps = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])["apps"] as? [[String: Any]]
        #expect((apps?.first?["lastError"] as? String)?.contains("other\u{1B}[2J\u{202E}") == true, "--json keeps the exact text")
        #expect(await daemon.stop() == 0)

        let folder = try TemporaryFolder()
        let document = try folder.file("t.json", #"{"packageName":"t","updates":[{"targetPackageUrl":"https://x\u0007","descriptions":{"*":{"message":"Hi\u001b]52;c;cGF3bmVk\u0007","whatIsNew":"a\nb"}}}]}"#)
        let evaluated = try await Executable.run("ssvcctl", ["evaluate", "--format", "turkcell", "--app-id", "t", "--response", document, "--version", "1.0"])
        #expect(evaluated.status == 10)
        #expect(evaluated.standardOutput.contains(#"Hi\x1b]52;c;cGF3bmVk\x07"#), "\(evaluated.standardOutput)")
        #expect(evaluated.standardOutput.contains(#"a\nb"#))
        #expect(rawControls(evaluated.standardOutput).isEmpty)
    }

    @Test("an App Store version holding '|' cannot forge Nagios performance data")
    func nagiosPipe() async throws {
        let folder = try TemporaryFolder()
        let lookup = try folder.file("lookup.json", #"{"resultCount":1,"results":[{"version":"2.0)|'apps'=3;;;0;'update_available'=0;"}]}"#)
        let daemon = try DaemonProcess(apps: appTable("store", url: "file://" + lookup, extra: "format = \"itunes\""), folder: folder)
        #expect(await daemon.wait { daemon.app("store")?["lastSuccess"] != nil }, "\(daemon.log)")
        let nagios = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios", "--timeout", "60"])
        #expect(nagios.status == 1)
        let lines = nagios.standardOutput.split(separator: "\n")
        #expect(lines.count == 1, "\(nagios.standardOutput)")
        #expect(lines.first?.filter { $0 == "|" }.count == 1, "only the plugin's own separator: \(nagios.standardOutput)")
        // Blanks are no part of a version (issue 52); '|' is printable ASCII, and escaped here.
        #expect(nagios.standardOutput.contains(#"2.0)\x7c'apps'=3;;;0;'update_available'=0;"#), "\(nagios.standardOutput)")
        #expect(await daemon.stop() == 0)
    }

    @Test("a server's version with an invisible character (U+200B) is refused naming it, and reaches no table, Nagios line, banner or metrics label (issue 52)")
    func invisibleVersion() async throws {
        let folder = try TemporaryFolder()
        // Escaped in the JSON: the string the daemon reads is "1.0" and U+200B.
        let document = try folder.file("r.json", #"{"SSVCLatestVersionKey":"1.0\u200b"}"#)
        let metrics = folder.url.appendingPathComponent("ssvc.prom").path
        let daemon = try DaemonProcess(daemon: "metrics-file = \"\(metrics)\"", apps: appTable("z", url: "file://" + document), folder: folder)
        #expect(await daemon.wait { daemon.app("z")?["lastCheck"] != nil }, "\(daemon.log)")
        let socket = ["--socket", daemon.socketPath, "--timeout", "60"]
        let table = try await Executable.run("ssvcctl", socket + ["status"], environment: ["LC_ALL": "C"])
        #expect(table.status == 12, "a bad value fails the check: \(table.standardOutput)")
        #expect(table.standardOutput.contains("U+200B"), "named: \(table.standardOutput)")
        let nagios = try await Executable.run("ssvcctl", socket + ["status", "--nagios"])
        let banner = try await Executable.run("ssvcctl", socket + ["motd"])
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: metrics) })
        let exposition = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
        for (name, text) in [("table", table.standardOutput), ("nagios", nagios.standardOutput), ("motd", banner.standardOutput), ("metrics", exposition)] {
            #expect(!text.unicodeScalars.contains("\u{200B}"), "\(name) holds the raw character: \(text)")
        }
        #expect(!exposition.contains(#"latest="1.0"#), "no metrics label of the refused version: \(exposition)")
        #expect(await daemon.stop() == 0)
    }

    @Test("a URL's password is shown to nobody: status, --json and the journal field say ***")
    func urlPassword() async throws {
        let folder = try TemporaryFolder()
        let daemon = try DaemonProcess(apps: appTable("p", url: "http://alice:s3cret@127.0.0.1:9/v.json"), folder: folder)
        #expect(await daemon.wait { daemon.app("p")?["lastCheck"] != nil })
        for arguments in [["status"], ["status", "--json"]] {
            let result = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments + ["--timeout", "60"])
            #expect(!result.standardOutput.contains("s3cret"), "\(result.standardOutput)")
        }
        let json = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json", "--timeout", "60"])
        #expect(json.standardOutput.contains(#"http:\/\/***@127.0.0.1:9\/v.json"#) || json.standardOutput.contains("http://***@127.0.0.1:9/v.json"))
        #expect(!daemon.log.contains("s3cret"), "SSVC_URL hides it too")
        #expect(daemon.log.contains("SSVC_URL=http://***@127.0.0.1:9/v.json"))
        #expect(await daemon.stop() == 0)
    }

    @Test("user information of every URL is masked: a token as user name, a signature URL's password, a proxy's user")
    func urlUserInformation() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let folder = try TemporaryFolder()
        let port = try #require(URL(string: server.url("/v"))?.port)
        let apps = appTable("token", url: "http://ghpTOKEN42@127.0.0.1:\(port)/v")
            + "\n" + appTable("signed", url: server.url("/s"), extra: """
            public-keys = ["RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw"]
            signature-url = "http://bob:sigSECRET@127.0.0.1:9/s.minisig"
            """)
            + "\n" + appTable("proxied", url: "http://127.0.0.1:9/p", extra: #"proxy = "http://proxyUSER@127.0.0.1:9""#)
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { ["token", "signed", "proxied"].allSatisfy { daemon.app($0)?["lastCheck"] != nil } }, "\(daemon.log)")
        let secrets = ["ghpTOKEN42", "sigSECRET", "bob", "proxyUSER"]
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--timeout", "60"])
        let json = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json", "--timeout", "60"])
        let checkConfig = try await Executable.run("ssvcd", ["--config", daemon.configPath, "--check-config"])
        for (name, text) in [("status", status.standardOutput), ("--json", json.standardOutput), ("log", daemon.log), ("--check-config", checkConfig.standardOutput)] {
            for secret in secrets { #expect(!text.contains(secret), "\(name) shows \(secret): \(text)") }
        }
        let byApp = try await daemon.statusByApp()
        #expect(byApp["token"]?["url"] as? String == "http://***@127.0.0.1:\(port)/v")
        #expect((byApp["signed"]?["lastError"] as? String)?.hasPrefix("signature http://***@127.0.0.1:9/s.minisig: ") == true, "\(byApp["signed"] ?? [:])")
        #expect(byApp["proxied"]?["proxy"] as? String == "http://***@127.0.0.1:9")
        #expect(await daemon.stop() == 0)
    }

    @Test("a reload refused for a file holding escapes and bidirectional characters: ssvcctl shows them escaped (found by attacking the loader)")
    func refusedReloadEscaped() async throws {
        let folder = try TemporaryFolder()
        let daemon = try DaemonProcess(apps: appTable("kept", url: "file://" + (try folder.file("r.json", goodBody))), folder: folder)
        #expect(await daemon.wait { daemon.app("kept")?["lastSuccess"] != nil })
        _ = try folder.file("apps.d/x.toml", "url = \"file:///x\"\nversion = \"1.0\"\nschedule = \"\\u001b]0;PWNED\\u0007\\u001b[2J\\u202e\"\n")
        let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--timeout", "60"])
        #expect(reload.status == 1)
        #expect(reload.standardError.contains("\\x1b]0;PWNED\\x07\\x1b[2J\\u{202E}"), "\(reload.standardError)")
        #expect(rawControls(reload.standardError).isEmpty, "\(reload.standardError)")
        #expect(await daemon.stop() == 0)
    }

    @Test("a name with an escape in the configuration or on evaluate's command line is shown escaped once, never twice (found attacking issue 53's keys)", arguments: [
        "lifecycle = \"endoflife\"\nlifecycle-product = \"x\\u001b[2J\"\n",
        "advisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nadvisories-package = \"x\\u001b[2J\"\n",
        "lifecycle = \"end\\u001b[2Jof\"\n",
    ])
    func escapedOnce(keys: String) async throws {
        let folder = try TemporaryFolder()
        let config = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\n[[app]]\nname = \"a\"\nversion = \"1.0\"\n\(keys)")
        let checked = try await Executable.run("ssvcd", ["--config", config, "--check-config"])
        #expect(checked.status == 78)
        #expect(checked.standardError.contains(#"\x1b[2J"#) && !checked.standardError.contains(#"\\x1b"#), "\(checked.standardError)")
        #expect(rawControls(checked.standardError).isEmpty)
        let evaluated = try await Executable.run("ssvcctl", ["evaluate", "--advisories", config, "--ecosystem", "PyPI", "--package", "x\u{1B}[2J", "--version", "1.0"])
        #expect(evaluated.status == 64)
        #expect(evaluated.standardError.contains(#"\x1b[2J"#) && !evaluated.standardError.contains(#"\\x1b"#), "\(evaluated.standardError)")
    }
}
