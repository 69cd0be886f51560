import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// Rollout control with real daemons on loopback (SPEC §14): a fleet
/// pinned at different positions follows the publisher's cap, and
/// `ssvcctl hold` holds a machine back across a restart.
@Suite("ssvcd: rollout control", .processSlot)
struct RolloutControlDaemonTests {
    static let positions = [0.1, 0.3, 0.5, 0.7, 0.9]

    /// `daemon` once its socket is there: a call before then finds nothing to connect to.
    func started(_ daemon: DaemonProcess) async -> DaemonProcess {
        await #expect(daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        return daemon
    }

    func check(_ daemon: DaemonProcess) async throws -> (status: Int32, text: String) {
        let result = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "app"])
        return (result.status, result.standardOutput)
    }

    @Test("a fleet pinned at 0.1 to 0.9 stops at the cap, holds still at 0, resumes when it rises; offers made stay, across restarts")
    func fleetFollowsTheCap() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutPercentage":40}"#])
        var fleet: [DaemonProcess] = []
        for position in Self.positions {
            fleet.append(await started(try DaemonProcess(daemon: "rollout-position = \(position)", apps: appTable("app", url: server.url("/a")))))
        }
        defer { fleet.forEach { $0.abandon() } }
        func offered() async throws -> [Bool] {
            var offered: [Bool] = []
            for daemon in fleet { offered.append(try await check(daemon).status == 10) }
            return offered
        }
        #expect(try await offered() == [true, true, false, false, false], "stopped at 40 %")
        let waiting = try await check(fleet[2]).text
        #expect(waiting.contains("app: 2.0 phased: waiting for the rollout to pass 50 % (now 40 %)"), "\(waiting)")

        try server.set(["body": #"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutPercentage":0}"#])
        #expect(try await offered() == [true, true, false, false, false], "paused: nobody new, nobody withdrawn")

        for (index, daemon) in fleet.enumerated() {
            #expect(await daemon.stop() == 0)
            fleet[index] = await started(try DaemonProcess(
                daemon: "rollout-position = \(Self.positions[index])", apps: appTable("app", url: server.url("/a")), folder: daemon.folder
            ))
        }
        #expect(try await offered() == [true, true, false, false, false], "restarted while paused")

        try server.set(["body": #"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutPercentage":75.5}"#])
        #expect(try await offered() == [true, true, true, true, false], "resumed to 75.5 %")
        #expect(try await check(fleet[4]).text.contains("app: 2.0 phased: waiting for the rollout to pass 90 % (now 75.5 %)"))
        try server.set(["body": #"{"SSVCLatestVersionKey":"2.0","SSVCPhasedRolloutPercentage":"half"}"#])
        var results: [(status: Int32, text: String)] = []
        for daemon in fleet { results.append(try await check(daemon)) }
        #expect(results.map(\.status) == [10, 10, 10, 10, 12], "a bad cap keeps the last good decision: \(results.map(\.text))")
        #expect(fleet[4].log.contains(#"SSVCPhasedRolloutPercentage: expected a number from 0 to 100, found the string "half""#), "\(fleet[4].log)")
        try server.set(["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        #expect(try await offered() == [true, true, true, true, true], "the cap removed: everyone")
    }

    @Test("ssvcctl hold and unhold: kept back, in the metrics and the banner, across a restart; a required update shows through")
    func holdAcrossRestart() async throws {
        let folder = try TemporaryFolder()
        let prom = folder.url.appendingPathComponent("ssvc.prom").path
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        let settings = "metrics-file = \"\(prom)\""
        let apps = appTable("app", url: server.url("/a")) + "\n" + appTable("other", url: server.url("/b"))
        var daemon = await started(try DaemonProcess(daemon: settings, apps: apps, folder: folder))
        defer { daemon.abandon() }
        let socket = ["--socket", daemon.socketPath]
        #expect(try await check(daemon).status == 10)

        let hold = try await Executable.run("ssvcctl", socket + ["hold", "app"])
        #expect(hold.status == 0, "\(hold.standardError)")
        #expect(hold.standardOutput.hasPrefix("app held at 1.0; 2.0 is kept back\n"), "\(hold.standardOutput)")
        let status = try await Executable.run("ssvcctl", socket + ["status", "app"])
        #expect(status.status == 0, "held back: nothing to do here")
        #expect(status.standardOutput.contains("app: 2.0 kept back by the hold at 1.0 since "), "\(status.standardOutput)")
        #expect(await daemon.wait { (try? String(contentsOfFile: prom, encoding: .utf8))?.contains("ssvc_update_held{app=\"app\"} 1") == true })
        let banner = try await Executable.run("ssvcctl", socket + ["motd"])
        #expect(banner.standardOutput.contains("  app: 2.0 kept back by the hold at 1.0 since "), "\(banner.standardOutput)")
        #expect(daemon.log.contains("app: held at 1.0 (by uid \(getuid())): nothing newer is offered until ssvcctl unhold app"), "\(daemon.log)")

        #expect(await daemon.stop() == 0)
        daemon = await started(try DaemonProcess(daemon: settings, apps: apps, folder: folder))
        let json = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "app", "--json"])
        #expect(json.status == 0)
        let app = try #require((try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["apps"] as? [[String: Any]])
        #expect(app.first?["hold"] as? String == "1.0" && app.first?["heldVersion"] as? String == "2.0" && app.first?["heldBy"] as? String == "hold")

        try server.set(["body": #"{"SSVCLatestVersionKey":"2.0","SSVCMinimumSupportedVersionNumber":33554432}"#])
        let required = try await check(daemon)
        #expect(required.status == 11, "a required update shows through the hold")
        #expect(required.text.contains("app: required: the hold at 1.0 does not defer it"), "\(required.text)")

        try server.set(["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        #expect(try await check(daemon).status == 0)
        let unhold = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "unhold", "app"])
        #expect(unhold.status == 0 && unhold.standardOutput.hasPrefix("app: hold at 1.0 lifted\n"), "\(unhold.standardOutput)")
        let again = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "unhold", "app"])
        #expect(again.status == 0 && again.standardOutput.hasPrefix("app was not held\n"), "\(again.standardOutput)")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "app"]).status == 10, "offered again, without a fetch")
        #expect(await daemon.wait { (try? String(contentsOfFile: prom, encoding: .utf8))?.contains("ssvc_update_held{app=\"app\"} 0") == true })
    }

    @Test("ssvcctl unhold lifts the hold kept for an app taken out of the configuration; then the app is no more (issue 52)")
    func unholdOfRemovedApp() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        let gone = appTable("gone", url: server.url("/g"))
        let daemon = await started(try DaemonProcess(apps: appTable("app", url: server.url("/a")) + "\n" + gone))
        defer { daemon.abandon() }
        let socket = ["--socket", daemon.socketPath]
        #expect(try await Executable.run("ssvcctl", socket + ["hold", "gone", "1.5"]).status == 0)
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: gone, with: "").write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        #expect(try await Executable.run("ssvcctl", socket + ["reload"]).status == 0)
        #expect((daemon.app("gone")?["hold"] as? [String: Any])?["version"] as? String == "1.5", "kept for when it comes back")

        let lifted = try await Executable.run("ssvcctl", socket + ["unhold", "gone"])
        #expect(lifted.status == 0 && lifted.standardOutput == "gone: not configured: its hold at 1.5 is lifted\n", "\(lifted.standardOutput)\(lifted.standardError)")
        #expect(daemon.app("gone") == nil, "gone from the state file")
        #expect(daemon.log.contains("gone: hold at 1.5 lifted (by uid \(getuid())); the app is not configured"), "\(daemon.log)")
        let again = try await Executable.run("ssvcctl", socket + ["unhold", "gone"])
        #expect(again.status == 1 && again.standardError == "ssvcctl: no such app: gone\n", "\(again.standardError)")
        #expect(await daemon.stop() == 0)
    }

    @Test("hold's errors: no such app, a version the scheme cannot read, nothing known to hold at; as nobody, permission denied")
    func holdErrors() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        let daemon = try DaemonProcess(
            daemon: "first-check-window-seconds = 3600",
            apps: appTable("app", url: server.url("/a")).replacingOccurrences(of: #"version = "1.0""#, with: #"version-command = ["/bin/echo", "1.0"]"#)
        )
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        let socket = ["--socket", daemon.socketPath]
        let missing = try await Executable.run("ssvcctl", socket + ["hold", "nope"])
        #expect(missing.status == 1 && missing.standardError == "ssvcctl: no such app: nope\n", "\(missing.standardError)")
        let unknown = try await Executable.run("ssvcctl", socket + ["hold", "app"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.hasPrefix("ssvcctl: cannot hold: the running version of app is not known yet"), "\(unknown.standardError)")
        let bad = try await Executable.run("ssvcctl", socket + ["hold", "app", "not-a-version"])
        #expect(bad.status == 1 && bad.standardError.contains("cannot hold: 'not-a-version' "), "\(bad.standardError)")
        // Refused before it is sent: blanks, invisible characters, 70 KB (issue 52).
        for (version, problem) in [
            ("1.5 ", "holds a blank (U+0020)"), ("1.0\u{200B}", "holds U+200B, not printable ASCII"),
            (String(repeating: "9", count: 70_000), "longer than 256 bytes (70000)"),
        ] {
            let refused = try await Executable.run("ssvcctl", socket + ["hold", "app", version])
            #expect(refused.status == 1 && refused.standardError.hasPrefix("ssvcctl: cannot hold: not a version string: \(problem)"), "\(refused.standardError)")
        }
        let escaped = try await Executable.run("ssvcctl", socket + ["hold", "app", "1.0\u{1b}[2J"])
        #expect(escaped.status == 1 && escaped.standardError.contains("not a version string"), "\(escaped.standardError)")
        #expect(!escaped.standardError.contains("\u{1b}"), "the caller's text comes back escaped")

        try #require(getuid() == 0, "the rest switches to nobody and needs root")
        let copy = daemon.folder.url.appendingPathComponent("ssvcctl").path
        #expect(try await Executable.shell("cp '\(try Executable.path("ssvcctl"))' '\(copy)' && chmod 755 '\(copy)' '\(daemon.folder.url.path)'").status == 0)
        for command in [["hold", "app", "1.0"], ["unhold", "app"]] {
            let denied = try await Executable.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", copy] + socket + command)
            #expect(denied.status == 1)
            #expect(denied.standardError == "ssvcctl: permission denied: check, reload, hold and unhold need root, the daemon's own user, or membership of its control-group\n")
        }
    }
}
