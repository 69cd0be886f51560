import Foundation
import SSVCTestSupport
import Testing

@Suite("ssvcd: the journal", .processSlot, .serialized, JournalTrait())
struct DaemonJournalTests {
    @Test("each check is one journal entry with SSVC_APP, SSVC_STATUS and MESSAGE_ID")
    func entry() async throws {
        let folder = try TemporaryFolder()
        let name = "journal-\(UUID().uuidString.prefix(8).lowercased())"
        let document = "file://" + (try folder.file("r.json", goodBody))
        let daemon = try DaemonProcess(apps: appTable(name, url: document), arguments: ["--log-target", "journal"], folder: folder)
        #expect(await daemon.wait { daemon.app(name)?["lastSuccess"] != nil })
        #expect(await daemon.stop() == 0)
        let entries = await journalEntries(app: name, atLeast: 1)
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["MESSAGE_ID"] as? String == "cdf3676b0e8e47a5b0d5dad2d7489f07")
        #expect(entry["SSVC_STATUS"] as? String == "update-available")
        #expect(entry["SSVC_CURRENT_VERSION"] as? String == "1.0")
        #expect(entry["SSVC_LATEST_VERSION"] as? String == "1.1")
        #expect(entry["SSVC_URL"] as? String == document)
        #expect(entry["SSVC_CONSECUTIVE_FAILURES"] as? String == "0")
        #expect(entry["SSVC_NEXT_CHECK"] != nil)
        #expect(entry["PRIORITY"] as? String == "5")
        #expect((entry["MESSAGE"] as? String)?.hasPrefix("\(name): update available: 1.0 → 1.1") == true)
        #expect(daemon.log.isEmpty, "entries went to stderr instead: \(daemon.log)")
    }

    @Test("journalctl -x explains an entry the daemon wrote, from systemd/ssvcd.catalog")
    func catalogText() async throws {
        try #require(getuid() == 0, "installing a catalog needs root")
        // As a package install does: the catalog in the machine's catalog
        // folder and database. Removed again, and the database rebuilt, after.
        let installed = "/usr/lib/systemd/catalog/ssvcd-test-\(UUID().uuidString.prefix(8)).catalog"
        try FileManager.default.createDirectory(atPath: "/usr/lib/systemd/catalog", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: SystemdUnitTests.repository.appendingPathComponent("systemd/ssvcd.catalog").path, toPath: installed
        )
        try await withCleanup {
            #expect(try await Executable.run("/usr/bin/journalctl", ["--update-catalog"]).status == 0)

            let folder = try TemporaryFolder()
            let name = "catalog-\(UUID().uuidString.prefix(8).lowercased())"
            let document = "file://" + (try folder.file("r.json", goodBody))
            let daemon = try DaemonProcess(apps: appTable(name, url: document), arguments: ["--log-target", "journal"], folder: folder)
            #expect(await daemon.wait { daemon.app(name)?["lastSuccess"] != nil })
            #expect(await daemon.stop() == 0)
            var text = ""
            _ = try await eventually(within: 20) {
                text = try await Executable.run("/usr/bin/journalctl", ["-x", "--no-pager", "SYSLOG_IDENTIFIER=ssvcd", "SSVC_APP=\(name)"]).standardOutput
                return text.contains("Subject:")
            }
            #expect(text.contains("Subject: An update is available for \(name)"), "\(text)")
            #expect(text.contains("offers 1.1 of"), "\(text)")
            #expect(text.contains("this machine runs 1.0."), "\(text)")
        } cleanup: {
            try? FileManager.default.removeItem(atPath: installed)
            _ = try? await Executable.run("/usr/bin/journalctl", ["--update-catalog"])
        }
    }
}
