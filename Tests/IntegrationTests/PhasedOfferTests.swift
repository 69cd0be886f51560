import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// Phased offers with the real daemon on loopback and short windows.
@Suite("ssvcd: phased offers", .processSlot)
struct PhasedOfferTests {
    /// A hook that records the SSVC_ environment of each status change.
    func recordingHook(in folder: TemporaryFolder) throws -> String {
        let record = folder.url.appendingPathComponent("status-changed").path
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("hooks.d"), withIntermediateDirectories: true)
        let hook = try folder.file("hooks.d/10-record", """
            #!/bin/sh
            echo "$SSVC_EVENT $SSVC_PREVIOUS_STATUS -> $SSVC_STATUS $SSVC_LATEST_VERSION" >> '\(record)'
            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        return record
    }

    func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test("pending after the first check, offered about 30 s later with no second request; a restart keeps the offer time")
    func offeredInItsTurn() async throws {
        let folder = try TemporaryFolder()
        let record = try recordingHook(in: folder)
        let prom = folder.url.appendingPathComponent("ssvc.prom").path
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        let settings = "rollout-position = 0.5\nhooks-dir = \"hooks.d\"\nmetrics-file = \"\(prom)\""
        let apps = appTable("app", url: server.url("/a"), extra: "phased-rollout-seconds = 60")
        var daemon = try DaemonProcess(daemon: settings, apps: apps, folder: folder)
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")

        // Pending: the status without 2.0, and what is coming.
        let pending = try #require(try await daemon.statusByApp()["app"])
        #expect(pending["status"] as? String == "up-to-date", "\(pending)")
        #expect(pending["pendingVersion"] as? String == "2.0")
        let offerText = try #require(pending["offerAt"] as? String)
        let offerAt = try #require(RFC3339.parse(offerText))
        let lastCheck = try #require(RFC3339.parse(pending["lastCheck"] as? String ?? ""))
        // No date in the document: T is the first check; p × W = 30 s, long
        // enough for the reads below on a busy machine (6 s was not, nor 15 s
        // at the crowded start of CI's tests step, where spawning ssvcctl took
        // seconds). (The timer's arithmetic is pinned in virtual time,
        // VirtualTimeTests.)
        #expect(abs(offerAt.timeIntervalSince(lastCheck) - 30) <= 1, "\(offerText) after \(lastCheck)")
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"])
        #expect(status.status == 0)
        #expect(status.standardOutput.contains("app: 2.0 phased: offered here at "), "\(status.standardOutput)")
        #expect(contents(prom).contains("ssvc_update_pending{app=\"app\"} 1"), "\(contents(prom))")
        #expect(contents(prom).contains("ssvc_update_offer_timestamp_seconds{app=\"app\"} \(Int(offerAt.timeIntervalSince1970))"))
        #expect(daemon.log.contains("app: up to date (1.0); 2.0 phased: offered here at \(offerText)"), "\(daemon.log)")
        #expect(Date() < offerAt, "the reads above ended after the offer time: they cannot have seen the pending state")

        // A restart in between keeps the offer time, and checks nothing.
        #expect(await daemon.stop() == 0)
        daemon = try DaemonProcess(daemon: settings, apps: apps, folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        #expect(try await daemon.statusByApp()["app"]?["offerAt"] as? String == offerText)
        // An operator's `ssvcctl watch` beside a program's Watch call.
        let watchText = folder.url.appendingPathComponent("watch.txt").path
        _ = try await Executable.shell("timeout 60 '\(try Executable.path("ssvcctl"))' --socket '\(daemon.socketPath)' watch > '\(watchText)' 2>&1 &")
        let watcher = try RawConnection(daemon.socketPath)
        watcher.call("io.ssvc.Daemon.Watch", extra: #","more":true"#)

        // Offered at its time, by the timer, without a fetch.
        guard case let .message(reply) = await watcher.receive(within: 60) else {
            Issue.record("no offer event: \(daemon.log)")
            return
        }
        let madeAt = Date()
        let event = try #require((reply["parameters"] as? [String: Any])?["event"] as? [String: Any])
        #expect(event["kind"] as? String == "offer", "\(event)")
        let app = try #require(event["app"] as? [String: Any])
        #expect(app["status"] as? String == "update-available")
        #expect(app["latestVersion"] as? String == "2.0")
        #expect(app["pendingVersion"] == nil)
        // Within 3 s on a quiet machine; a timer and a reply seconds late beside
        // Tests/busy are no fault of the offer, which is never early.
        #expect(madeAt >= offerAt && madeAt.timeIntervalSince(offerAt) < 10, "made at \(madeAt), due \(offerAt)")
        #expect(server.requests().count == 1, "one request in all: \(server.requests())")
        #expect(await daemon.wait { contents(watchText).contains(" offer app update-available 1.0 -> 2.0 (phased rollout: its turn here came)\n") },
                "ssvcctl watch: \(contents(watchText))")

        #expect(await daemon.wait { (try? String(contentsOfFile: record, encoding: .utf8))?.contains("status-changed up-to-date -> update-available 2.0") == true },
                "\((try? String(contentsOfFile: record, encoding: .utf8)) ?? "no hook ran")")
        let entry = daemon.lines(for: "app").first { $0.contains("update available: 1.0 → 2.0 (phased rollout") }
        #expect(entry?.contains("MESSAGE_ID=\(MessageID.updateAvailable.rawValue)") == true, "\(daemon.log)")
        #expect(entry?.contains("SSVC_PHASED_OFFER_AT=\(offerText)") == true, "\(entry ?? "")")
        #expect(await daemon.wait { contents(prom).contains("ssvc_update_pending{app=\"app\"} 0") }, "\(contents(prom))")
        #expect(!contents(prom).contains("ssvc_update_offer_timestamp_seconds{app="))
        #expect(await daemon.wait { daemon.app("app") != nil && daemon.app("app")?["pending"] == nil }, "the state file is written within a second")
        let after = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "app"])
        #expect(after.status == 10, "\(after.standardOutput)")
        #expect(await daemon.stop() == 0)
    }

    @Test("a required update is offered at once, whatever the window and position")
    func requiredAtOnce() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0","SSVCMinimumSupportedVersionNumber":33554432}"#])
        let daemon = try DaemonProcess(
            daemon: "rollout-position = 0.9", apps: appTable("app", url: server.url("/a"), extra: "phased-rollout-seconds = 86400")
        )
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        let app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["status"] as? String == "update-required", "\(app)")
        #expect(app["pendingVersion"] == nil && app["offerAt"] == nil)
        #expect(await daemon.stop() == 0)
    }

    @Test("the document's SSVCPhasedRolloutInterval is the window when the app sets none, from the document's date")
    func documentWindow() async throws {
        let announced = Int(Date().timeIntervalSince1970) - 5
        let body = #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":\#(announced),"SSVCPhasedRolloutInterval":7200}"#
        let server = try await VersionServer(scenario: ["body": body])
        let daemon = try DaemonProcess(daemon: "rollout-position = 0.5", apps: appTable("app", url: server.url("/a")))
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        let app = try #require(try await daemon.statusByApp()["app"])
        #expect(app["status"] as? String == "up-to-date", "\(app)")
        #expect(app["pendingVersion"] as? String == "2.0")
        #expect(app["offerAt"] as? String == RFC3339.format(Date(timeIntervalSince1970: TimeInterval(announced + 3_600))))
        // The app's own 0 turns phasing off for this document.
        #expect(await daemon.stop() == 0)
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
            .replacingOccurrences(of: "version = \"1.0\"", with: "version = \"1.0\"\nphased-rollout-seconds = 0")
        let again = try DaemonProcess(folder: daemon.folder, config: config, daemon: "", apps: "", arguments: [], environment: [:])
        #expect(await again.wait { FileManager.default.fileExists(atPath: again.socketPath) })
        #expect(await again.wait { (try? await again.statusByApp()["app"]?["status"] as? String) == "update-available" }, "\(again.log)")
        #expect(await again.stop() == 0)
    }

    @Test("a reload that makes a pending offer due journals the time it was made, not the old future time")
    func reloadMakesOfferDue() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0"}"#])
        let daemon = try DaemonProcess(daemon: "rollout-position = 0.9", apps: appTable("app", url: server.url("/a"), extra: "phased-rollout-seconds = 86400"))
        #expect(await daemon.wait { daemon.app("app")?["lastSuccess"] != nil }, "\(daemon.log)")
        let oldOffer = try #require(try await daemon.statusByApp()["app"]?["offerAt"] as? String)
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "rollout-position = 0.9", with: "rollout-position = 0").write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let reloadedAt = Date()
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"]).status == 0)
        #expect(await daemon.wait { (try? await daemon.statusByApp()["app"]?["status"] as? String) == "update-available" }, "\(daemon.log)")
        let entry = try #require(daemon.lines(for: "app").first { $0.contains("SSVC_PHASED_OFFER_AT=") && $0.contains("update available") }, "\(daemon.log)")
        #expect(!entry.contains("SSVC_PHASED_OFFER_AT=\(oldOffer)"), "the old future time: \(entry)")
        let shown = try #require(entry.split(separator: " ").first { $0.hasPrefix("SSVC_PHASED_OFFER_AT=") }.map { String($0.dropFirst("SSVC_PHASED_OFFER_AT=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "]")) })
        let made = try #require(RFC3339.parse(shown), "\(shown)")
        // Shown in whole seconds: made at the reload, not at T (the first check's time) nor at T + 0.9 W.
        #expect(made <= Date() && made >= Date(timeIntervalSince1970: reloadedAt.timeIntervalSince1970.rounded(.down)), "\(shown)")
        #expect(await daemon.stop() == 0)
    }
}
