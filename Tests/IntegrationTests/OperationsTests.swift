import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// The package installed into a temporary root, run the way an operator runs
/// it: socket activation, the journal, app files dropped in and taken out,
/// reloads good and bad, an upgrade, a restart.
@Suite("operations: the installed package end to end", .processSlot, .serialized, JournalTrait())
struct OperationsTests {
    @Test("an operator's day with ten apps of three formats")
    func operatorsDay() async throws {
        let units = SystemdUnitTests()
        let (packageFolder, deb) = try await units.package()
        defer { withExtendedLifetime(packageFolder) {} }
        let root = packageFolder.url.appendingPathComponent("target").path
        try #require(try await Executable.shell("mkdir -p '\(root)'/var/lib/dpkg/info '\(root)'/var/lib/dpkg/updates && touch '\(root)'/var/lib/dpkg/status").status == 0)
        let install = try await Executable.run("/usr/bin/dpkg", ["--root=\(root)", "--force-script-chrootless", "--force-depends", "-i", deb])
        try #require(install.status == 0, "\(install.standardError)")
        let ssvcd = root + "/usr/bin/ssvcd"
        let ssvcctl = root + "/usr/bin/ssvcctl"

        // Servers and documents: two ssvc apps over HTTP, the rest from files.
        let server = try await VersionServer(scenario: ["body": goodBody])
        let documents = try TemporaryFolder()
        let ssvcDocument = "file://" + (try documents.file("ssvc.json", goodBody))
        let turkcellDocument = "file://" + (try documents.file("turkcell.json", String(contentsOf: SystemdUnitTests.repository.appendingPathComponent("etc/demo/turkcell.json"), encoding: .utf8)))
        let itunesDocument = "file://" + (try documents.file("itunes.json", String(contentsOf: SystemdUnitTests.repository.appendingPathComponent("etc/demo/itunes.json"), encoding: .utf8)))
        let versionFile = try documents.file("installed-version", "1.0\n")

        let tag = "ops\(UUID().uuidString.prefix(6).lowercased())"
        let appsDir = root + "/etc/ssvc/apps.d"
        func drop(_ name: String, _ text: String) throws {
            try text.write(toFile: "\(appsDir)/\(tag)-\(name).toml", atomically: true, encoding: .utf8)
        }
        try drop("http-1", "url = \"\(server.url("/a"))\"\nversion = \"1.0\"\n")
        try drop("http-2", "url = \"\(server.url("/b"))\"\nversion = \"1.1\"\nschedule = \"hourly\"\n")
        try drop("file-1", "url = \"\(ssvcDocument)\"\nversion-file = \"\(versionFile)\"\n")
        try drop("file-2", "url = \"\(ssvcDocument)\"\nversion-command = [\"echo\", \"0.9\"]\nschedule = \"weekly\"\n")
        for index in 1...3 {
            try drop("turkcell-\(index)", "url = \"\(turkcellDocument)\"\nformat = \"turkcell\"\napp-id = \"io.ssvc.demo\"\nversion = \"2.\(index)\"\n")
            try drop("itunes-\(index)", "url = \"\(itunesDocument)\"\nformat = \"itunes\"\nversion = \"2.\(8 + index)\"\nschedule = \"monthly\"\n")
        }
        let socket = root + "/run/ssvc/io.ssvc.Daemon"
        try FileManager.default.createDirectory(atPath: root + "/run/ssvc", withIntermediateDirectories: true)
        try """
            [daemon]
            state-dir = "\(root)/var/lib/ssvc"
            socket = "\(socket)"
            apps-dir = "\(appsDir)"
            first-check-window-seconds = 0
            catch-up-window-seconds = 0
            min-interval-seconds = 0
            """.write(toFile: root + "/etc/ssvc/ssvcd.toml", atomically: true, encoding: .utf8)

        func status() async throws -> [[String: Any]] {
            let result = try await Executable.run(ssvcctl, ["--socket", socket, "status", "--json"])
            // Empty while the daemon is not (yet) answering: callers poll.
            guard let object = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] else {
                return []
            }
            return (object["apps"] as? [[String: Any]] ?? []).filter { ($0["name"] as? String)?.hasPrefix(tag) == true }
        }
        func wait(_ seconds: Double = 15, until condition: () async throws -> Bool) async rethrows -> Bool {
            try await eventually(within: seconds, condition)
        }

        // Socket activation: the first ssvcctl call starts the daemon.
        let activated = try ChildProcess(
            "/usr/bin/systemd-socket-activate",
            ["-l", socket, ssvcd, "--config", root + "/etc/ssvc/ssvcd.toml", "--log-target", "journal"]
        )
        #expect(await wait { FileManager.default.fileExists(atPath: socket) })
        #expect(try await wait { try await status().filter { $0["lastSuccess"] != nil }.count == 10 }, "all ten apps checked")
        let first = try await status()
        #expect(Set(first.compactMap { $0["format"] as? String }) == ["ssvc", "turkcell", "itunes"])
        #expect(first.first { $0["name"] as? String == "\(tag)-file-2" }?["status"] as? String == "update-available")
        #expect(server.requests().count == 2)

        // The journal has an entry for every app's check, with the fields.
        var appsInJournal = Set<String>()
        #expect(try await wait {
            let journal = try await Executable.run("/usr/bin/journalctl", ["-o", "json", "--no-pager", "SYSLOG_IDENTIFIER=ssvcd"])
            appsInJournal = Set(journal.standardOutput.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).flatMap { entry in
                    entry["SSVC_STATUS"] != nil ? entry["SSVC_APP"] as? String : nil
                }
            }.filter { $0.hasPrefix(tag) })
            return appsInJournal.count == 10
        }, "apps in the journal: \(appsInJournal.sorted())")

        // A good app file and a reload: eleven apps. A bad one: refused, eleven still.
        try drop("late", "url = \"\(ssvcDocument)\"\nversion = \"1.1\"\n")
        let reload = try await Executable.run(ssvcctl, ["--socket", socket, "reload"])
        #expect(reload.status == 0, "\(reload.standardError)")
        #expect(try await wait { let apps = try await status(); return apps.count == 11 && apps.contains { $0["name"] as? String == "\(tag)-late" && $0["lastSuccess"] != nil } })
        try drop("broken", "url = \"\(ssvcDocument)\"\nversion = \"1\"\nschedule = \"fortnightly\"\n")
        let refused = try await Executable.run(ssvcctl, ["--socket", socket, "reload"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("schedule: expected one of never, hourly, daily, weekly, monthly, found 'fortnightly'"))
        #expect(try await status().count == 11)
        try FileManager.default.removeItem(atPath: "\(appsDir)/\(tag)-broken.toml")

        // The product is upgraded between two checks: the status follows.
        #expect(try await status().first { $0["name"] as? String == "\(tag)-file-1" }?["status"] as? String == "update-available")
        try "1.1\n".write(toFile: versionFile, atomically: true, encoding: .utf8)
        let check = try await Executable.run(ssvcctl, ["--socket", socket, "check", "\(tag)-file-1"])
        #expect(check.status == 0, "\(check.standardOutput)")
        #expect(try await status().first { $0["name"] as? String == "\(tag)-file-1" }?["currentVersion"] as? String == "1.1")

        // An app removed: gone after the reload.
        try FileManager.default.removeItem(atPath: "\(appsDir)/\(tag)-late.toml")
        #expect(try await Executable.run(ssvcctl, ["--socket", socket, "reload"]).status == 0)
        #expect(try await status().count == 10)
        let gone = try await Executable.run(ssvcctl, ["--socket", socket, "status", "\(tag)-late"])
        #expect(gone.standardError == "ssvcctl: no such app: \(tag)-late\n")

        // A restart resumes the schedule: nothing is due, so nothing is fetched.
        kill(activated.pid, SIGTERM)
        #expect(await activated.exitCode() == 0)
        let requestsBefore = server.requests().count
        let restarted = try DaemonProcess(
            folder: documents, config: try String(contentsOfFile: root + "/etc/ssvc/ssvcd.toml", encoding: .utf8),
            daemon: "", apps: "", arguments: [], environment: [:], binary: ssvcd
        )
        #expect(try await wait { try await status().count == 10 })
        await pause(1.5)
        #expect(server.requests().count == requestsBefore)
        let resumed = try await status()
        #expect(resumed.allSatisfy { $0["nextCheckReason"] as? String == "schedule" }, "\(resumed.map { $0["nextCheckReason"] ?? "" })")
        #expect(resumed.first { $0["name"] as? String == "\(tag)-file-1" }?["currentVersion"] as? String == "1.1")
        #expect(await restarted.stop() == 0)
    }
}
