import Foundation
import SSVCTestSupport
import Testing

/// Offer windows with the built binaries (SPEC §16, issue 54): `ssvcctl
/// evaluate --offer-windows` as operators use it, and a real daemon whose
/// version waits for its window in every output.
@Suite("ssvcd: offer windows", .processSlot)
struct OfferWindowsIntegrationTests {
    @Test("evaluate --offer-windows: the offer instant and its window, text and JSON, across a DST change in the zone")
    func evaluate() async throws {
        let folder = try TemporaryFolder()
        let file = try folder.file("windows.toml", """
            offer-windows = [ { days = ["Sun"], start = "02:00", minutes = 60 } ]
            windows-time-zone = "Europe/Berlin"
            """)
        // 2026-10-25 (Sunday): 02:00-03:00 is lived twice in Berlin, one window of two hours.
        let json = try await Executable.run("ssvcctl", ["evaluate", "--offer-windows", file, "--at", "2026-10-24T12:00:00Z", "--position", "0.75", "--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: String])
        // floor(0.75 × 60) = 45 minutes after 02:00 CEST.
        #expect(object == ["offerAt": "2026-10-25T00:45:00Z", "windowStart": "2026-10-25T00:00:00Z", "windowEnd": "2026-10-25T02:00:00Z"], "\(object)")
        let text = try await Executable.run("ssvcctl", ["evaluate", "--offer-windows", file, "--at", "2026-10-25T01:30:00Z"])
        #expect(text.status == 0)
        #expect(text.standardOutput == "offered at 2026-10-25T01:30:00Z\n  in the window from 2026-10-25T00:00:00Z to 2026-10-25T02:00:00Z (Europe/Berlin)\n",
                "\(text.standardOutput)")
        let always = try folder.file("always.toml", #"offer-windows = [ { days = ["Mon"], start = "00:00", minutes = 10080 } ]"#)
        let open = try await Executable.run("ssvcctl", ["evaluate", "--offer-windows", always, "--at", "2026-10-25T01:30:00Z", "--json"])
        #expect(open.standardOutput.contains(#""windowStart" : null"#) || open.standardOutput.contains(#""windowStart":null"#), "\(open.standardOutput)")
    }

    @Test("evaluate --offer-windows: a bad file exits 64 naming the key; bad options are usage errors")
    func evaluateErrors() async throws {
        let folder = try TemporaryFolder()
        let cases: [(String, [String], String)] = [
            (#"offer-windows = [ { days = ["Sat"], start = "24:00", minutes = 60 } ]"#, [], "offer-windows[0].start: expected \"HH:MM\""),
            (#"offer-windows = []"#, [], "offer-windows: empty"),
            (#"offer-windows = [ { days = ["Sat"], start = "23:00", minutes = 60 } ]"# + "\nwindows-time-zone = \"Mars/Base\"", [],
             "windows-time-zone: no zone 'Mars/Base'"),
            (#"offer-windows = [ { days = ["Sat"], start = "23:00", minutes = 60 } ]"# + "\nwindows-time-zone = \"../../etc/shadow\"", [],
             "not a zone name"),
            ("windows-time-zone = \"UTC\"", [], "offer-windows: missing"),
            (#"offer-window = 1"#, [], "offer-window: unknown key"),
            ("offer-windows = [", [], "ssvcctl: "),
        ]
        for (index, (toml, _, expected)) in cases.enumerated() {
            let file = try folder.file("bad\(index).toml", toml)
            let result = try await Executable.run("ssvcctl", ["evaluate", "--offer-windows", file, "--at", "2026-10-24T12:00:00Z"])
            #expect(result.status == 64, "\(toml): \(result.standardError)")
            #expect(result.standardError.contains(expected), "\(toml): \(result.standardError)")
        }
        let good = try folder.file("good.toml", #"offer-windows = [ { days = ["Sat"], start = "23:00", minutes = 60 } ]"#)
        let usage: [([String], String)] = [
            (["--offer-windows", good], "--offer-windows needs --at"),
            (["--offer-windows", good, "--at", "tomorrow"], "--at 'tomorrow': expected an RFC 3339 time"),
            (["--offer-windows", good, "--at", "2026-10-24T12:00:00Z", "--position", "1.5"], "--position: must be from 0 to 1"),
            (["--offer-windows", good, "--at", "2026-10-24T12:00:00Z", "--position", "nan"], "--position: must be from 0 to 1"),
            (["--response", good, "--version", "1", "--at", "2026-10-24T12:00:00Z"], "--at and --position go with --offer-windows"),
            (["--offer-windows", folder.url.path, "--at", "2026-10-24T12:00:00Z"], "is a directory"),
        ]
        for (arguments, expected) in usage {
            let result = try await Executable.run("ssvcctl", ["evaluate"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(expected), "\(arguments): \(result.standardError)")
        }
    }

    @Test("a real daemon: the version waits for its window in status, --json, Nagios, the banner and the journal")
    func daemon() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("v.json", #"{"SSVCLatestVersionKey":"2.0"}"#))
        // A window three days from now, so never open during the test.
        let now = Date()
        let weekday = (Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) + 3) % 7
        let day = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][(weekday + 3) % 7]
        let daemon = try DaemonProcess(daemon: "rollout-position = 0", apps: """
            [[app]]
            name = "billing"
            url = "\(document)"
            schedule = "never"
            version = "1.0"
            offer-windows = [ { days = ["\(day)"], start = "12:00", minutes = 60 } ]
            """, folder: folder)
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"])
        #expect(check.status == 0, "up to date until the window\n\(check.standardOutput)\(check.standardError)")
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"], environment: ["TZ": "UTC"])
        #expect(status.standardOutput.contains("billing: 2.0 waits for the window \(day) 12:00 UTC (in "), "\(status.standardOutput)")
        let apps = try await daemon.statusByApp()
        let window = try #require(apps["billing"]?["nextWindow"] as? [String: String])
        #expect(window["start"]?.hasSuffix("T12:00:00Z") == true && window["end"]?.hasSuffix("T13:00:00Z") == true, "\(window)")
        #expect(apps["billing"]?["offerAt"] as? String == window["start"])
        let nagios = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios"])
        #expect(nagios.status == 0)
        #expect(nagios.standardOutput.contains("; waiting for an offer window: billing 2.0 (from \(window["start"] ?? "?")) |"), "\(nagios.standardOutput)")
        let banner = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "motd"], environment: ["TZ": "UTC"])
        #expect(banner.standardOutput.contains("  billing: 2.0 waits for the window \(day) 12:00 UTC"), "\(banner.standardOutput)")
        let said = daemon.lines(for: "billing").filter { $0.contains("MESSAGE_ID=058c7110870c4c62ae42928ecbc3cc37") }
        #expect(said.count == 1 && said.first?.contains("billing: 2.0 waits for the offer window from \(window["start"] ?? "?")") == true, "\(daemon.log)")
        // Checked again: nothing said again.
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"])
        #expect(daemon.lines(for: "billing").filter { $0.contains("MESSAGE_ID=058c7110870c4c62ae42928ecbc3cc37") }.count == 1)
    }
}
