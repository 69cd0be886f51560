import Foundation
import SSVCTestSupport
import SSVCCore
import SSVCPosix
import Testing

/// Advisories with real daemons (SPEC §13): real OSV records served from
/// a loopback OSV API, an export zip over http and a folder, evaluated
/// by the daemon and shown by `ssvcctl`.
@Suite("ssvcd: advisories", .processSlot)
struct AdvisoryTests {
    static let records = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/osv")

    static func record(_ id: String) throws -> String {
        try String(contentsOf: records.appendingPathComponent("\(id).json"), encoding: .utf8)
    }

    func started(_ daemon: DaemonProcess) async -> DaemonProcess {
        await #expect(daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        return daemon
    }

    func ssvcctl(_ daemon: DaemonProcess, _ arguments: [String]) async throws -> CommandResult {
        try await Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments)
    }

    /// A folder of the records `ids`, as a `file://` mirror of records.
    static func recordsFolder(_ ids: [String], in folder: TemporaryFolder) throws -> URL {
        let records = folder.url.appendingPathComponent("records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        for id in ids { try record(id).write(to: records.appendingPathComponent("\(id).json"), atomically: true, encoding: .utf8) }
        return records
    }

    /// An `[[app]]` table that asks about advisories only.
    static func advisoryApp(_ name: String, version: String, ecosystem: String, source: String, extra: String = "") -> String {
        """
        [[app]]
        name = "\(name)"
        version = "\(version)"
        version-scheme = "semver"
        advisories = "osv"
        advisories-url = "\(source)"
        advisories-ecosystem = "\(ecosystem)"
        \(extra)
        """
    }

    /// An export zip of `ids` (and `extra` entries), made by Python's zipfile.
    static func export(_ ids: [String], extra: [String: String] = [:], in folder: TemporaryFolder) async throws -> String {
        let path = folder.url.appendingPathComponent("all.zip").path
        var entries: [String: String] = [:]
        for id in ids { entries["\(id).json"] = try record(id) }
        entries.merge(extra) { _, new in new }
        let spec = try folder.file("entries.json", String(decoding: try JSONSerialization.data(withJSONObject: entries), as: UTF8.self))
        let made = try await Executable.shell("""
            python3 -c 'import json, sys, zipfile
            entries = json.load(open(sys.argv[1]))
            with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
                [z.writestr(name, text) for name, text in sorted(entries.items())]' '\(spec)' '\(path)'
            """)
        #expect(made.status == 0, "\(made.standardError)")
        return path
    }

    @Test("the OSV API: pages followed, the version never sent; a fix the server offers makes the update required, one it does not exit 13")
    func api() async throws {
        let page2 = "{\"vulns\": [{\"id\": 1}, \(try Self.record("GHSA-9v2f-6vcg-3hgv"))]}"
        let server = try await VersionServer(scenario: [
            "paths": ["/v.json": ["body": #"{"SSVCLatestVersionKey":"2.31.0"}"#]],
            "pages": ["": "{\"vulns\": [\(try Self.record("PYSEC-2023-74"))], \"next_page_token\": \"t1\"}", "t1": page2],
        ])
        let folder = try TemporaryFolder()
        let prom = folder.url.appendingPathComponent("ssvc.prom").path
        let daemon = await started(try DaemonProcess(daemon: "metrics-file = \"\(prom)\"", apps: """
            [[app]]
            name = "requests"
            url = "\(server.url("/v.json"))"
            schedule = "never"
            version = "2.30.0"
            version-scheme = "pep440"
            advisories = "osv"
            advisories-url = "\(server.url("/v1/query"))"
            advisories-ecosystem = "PyPI"
            """, folder: folder))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check", "requests"])
        #expect(check.status == 11, "\(check.standardOutput)\(check.standardError)\n\(daemon.log)")
        #expect(check.standardOutput.contains("required: PYSEC-2023-74 is fixed in 2.31.0"), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("requests: advisories affected ("), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("  PYSEC-2023-74 (fixed in 2.31.0)"), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("1 advisory records skipped: page 2 vulns[0]"), "\(check.standardOutput)")
        let queries = server.requests().filter { $0["method"] as? String == "POST" }
        #expect(queries.count == 2, "two pages")
        for query in queries {
            let body = try #require(query["body"] as? String)
            #expect(body.contains(#""name":"requests""#) && !body.contains("2.30.0"), "the version is never sent: \(body)")
        }
        #expect((queries.last?["body"] as? String)?.contains(#""page_token":"t1""#) == true)

        let json = try await ssvcctl(daemon, ["status", "requests", "--json"])
        let app = try #require(((try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["apps"] as? [[String: Any]])?.first)
        #expect(app["status"] as? String == "update-required")
        #expect(app["advisoryState"] as? String == "affected")
        #expect(app["advisoriesChecked"] is String)
        let advisories = try #require(app["advisories"] as? [[String: Any]])
        #expect(advisories.map { $0["id"] as? String } == ["PYSEC-2023-74"])
        #expect(advisories.first?["fixed"] as? String == "2.31.0")
        #expect(await daemon.wait { (try? String(contentsOfFile: prom, encoding: .utf8))?.contains("ssvc_app_advisories{app=\"requests\"} 1") == true })
        let metrics = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(metrics.contains(#"ssvc_app_advisory_info{app="requests",id="PYSEC-2023-74",fixed="2.31.0",severity=""} 1"#), "\(metrics)")
        #expect(metrics.contains(#"ssvc_advisory_state{app="requests",state="affected"} 1"#))
        #expect(daemon.log.contains("requests: 2.30.0 is affected by PYSEC-2023-74 (fixed in 2.31.0): update required"), "\(daemon.log)")

        // A hold defers optional updates only: an advisory's fix still shows.
        #expect(try await ssvcctl(daemon, ["hold", "requests"]).status == 0)
        let held = try await ssvcctl(daemon, ["status", "requests"])
        #expect(held.status == 11, "\(held.standardOutput)")
        #expect(held.standardOutput.contains("required: PYSEC-2023-74 is fixed in 2.31.0"), "\(held.standardOutput)")
        #expect(try await ssvcctl(daemon, ["unhold", "requests"]).status == 0)

        // The server's latest is below the fix: affected, no fix offered, exit 13.
        try server.set([
            "paths": ["/v.json": ["body": #"{"SSVCLatestVersionKey":"2.30.0"}"#]],
            "pages": ["": "{\"vulns\": [\(try Self.record("PYSEC-2023-74"))]}"],
        ])
        let unfixed = try await ssvcctl(daemon, ["check", "requests"])
        #expect(unfixed.status == 13, "\(unfixed.standardOutput)")
        let nagios = try await ssvcctl(daemon, ["status", "--nagios"])
        #expect(nagios.status == 2)
        #expect(nagios.standardOutput.hasPrefix("SSVC CRITICAL - affected by advisories: requests (PYSEC-2023-74)"), "\(nagios.standardOutput)")
        let banner = try await ssvcctl(daemon, ["motd"])
        #expect(banner.standardOutput.contains("  requests: affected by PYSEC-2023-74"), "\(banner.standardOutput)")
    }

    @Test("an export zip over http, for an app with no version server: read once, not again while unchanged; an ignore entry clears it")
    func exportZip() async throws {
        let folder = try TemporaryFolder()
        let zip = try await Self.export(
            ["PYSEC-2023-74", "GO-2020-0001", "RUSTSEC-2019-0033", "DSA-3029-1", "GHSA-r9p9-mrjm-926w"],
            extra: [
                "bad.json": #"{"id": "X", "details": "about github.com/gin-gonic/gin"}"#, "../evil.json": try Self.record("PYSEC-2023-74"), "dir\\evil.json": "{}", "README": "not a record",
            ], in: folder
        )
        let server = try await VersionServer(scenario: ["file": zip, "etag": "\"v1\""])
        func app(_ extra: String = "") -> String {
            """
            [[app]]
            name = "gin"
            version = "v1.5.0"
            version-scheme = "semver"
            advisories = "osv"
            advisories-url = "\(server.url("/Go/all.zip"))"
            advisories-ecosystem = "Go"
            app-id = "github.com/gin-gonic/gin"
            \(extra)
            """
        }
        var daemon = await started(try DaemonProcess(apps: app(), folder: folder))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check", "gin"])
        #expect(check.status == 11, "no version server: any fix counts as offered\n\(check.standardOutput)\n\(daemon.log)")
        #expect(check.standardOutput.contains("GO-2020-0001 (fixed in 1.6.0)"), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("bad.json: document: X has no \"modified\""), "a bad record whose text names the package is named (one that cannot name it goes unparsed, issue 55): \(check.standardOutput)")
        #expect(check.standardOutput.contains("../evil.json: unsafe name"), "\(check.standardOutput)")
        // Escaped once where it is shown, not twice (issue 51).
        #expect(check.standardOutput.contains(#"dir\\evil.json: unsafe name"#) && !check.standardOutput.contains(#"dir\\\\evil"#), "\(check.standardOutput)")
        let json = try await ssvcctl(daemon, ["status", "gin", "--json"])
        let shown = try #require((try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["apps"] as? [[String: Any]])
        #expect(shown.first?["url"] == nil, "no version server: \(json.standardOutput)")
        let before = server.requests().count
        _ = try await ssvcctl(daemon, ["check", "gin"])
        let gets = server.requests().filter { $0["path"] as? String == "/Go/all.zip" }
        #expect(server.requests().count == before + 1)
        #expect((gets.last?["headers"] as? [String: String])?["If-None-Match"] == "\"v1\"", "an unchanged export is not read again")
        let kept = { ((try? FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory)) ?? []).filter { $0.hasPrefix(".advisories-") } }
        #expect(kept().count == 1, "the mirror's one download, kept for the apps that share it (issue 55): \(kept())")

        #expect(await daemon.stop() == 0)
        #expect(kept().isEmpty, "removed at the stop: \(kept())")
        daemon = await started(try DaemonProcess(apps: app(#"ignore-advisories = [{ id = "CVE-2020-36567", until = 2999-01-01, reason = "not exposed" }]"#), folder: folder))
        let ignored = try await ssvcctl(daemon, ["status", "gin"])
        #expect(ignored.status == 0, "ignored by its alias: \(ignored.standardOutput)")
        #expect(ignored.standardOutput.contains("gin: advisories clear ("), "\(ignored.standardOutput)")
        #expect(ignored.standardOutput.contains("1 ignored"), "\(ignored.standardOutput)")
    }

    @Test("a file:// folder of records and a file:// export zip decide as the API does")
    func localMirrors() async throws {
        let folder = try TemporaryFolder()
        let records = try Self.recordsFolder(["RUSTSEC-2019-0033", "GHSA-r9p9-mrjm-926w"], in: folder)
        let zip = try await Self.export(["RUSTSEC-2019-0033", "GHSA-r9p9-mrjm-926w"], in: folder)
        let daemon = await started(try DaemonProcess(apps: [
            Self.advisoryApp("http", version: "0.1.19", ecosystem: "crates.io", source: "file://\(records.path)"),
            Self.advisoryApp("elliptic", version: "6.5.4", ecosystem: "npm", source: "file://\(zip)"),
        ].joined(separator: "\n"), folder: folder))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check"])
        #expect(check.status == 11, "\(check.standardOutput)\n\(daemon.log)")
        #expect(check.standardOutput.contains("RUSTSEC-2019-0033 (fixed in 0.1.20)"), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("elliptic: advisories clear"), "6.5.4 is the fix: \(check.standardOutput)")
    }

    @Test("version-package: the source package dpkg names, its version, Debian's order")
    func debianPackage() async throws {
        let folder = try TemporaryFolder()
        let admin = folder.url.appendingPathComponent("dpkg")
        try FileManager.default.createDirectory(at: admin, withIntermediateDirectories: true)
        try """
            Package: nginx-core
            Status: install ok installed
            Architecture: amd64
            Source: nginx (1.2.1-2.2+wheezy2)
            Version: 1.2.1-2.2+wheezy2+b1

            """.write(to: admin.appendingPathComponent("status"), atomically: true, encoding: .utf8)
        let records = try Self.recordsFolder(["DSA-3029-1"], in: folder)
        let daemon = await started(try DaemonProcess(apps: """
            [[app]]
            name = "nginx"
            version-package = "nginx-core"
            advisories = "osv"
            advisories-url = "file://\(records.path)"
            advisories-ecosystem = "Debian:7"
            """, environment: ["DPKG_ADMINDIR": admin.path], folder: folder))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check", "nginx"])
        #expect(check.status == 11, "\(check.standardOutput)\n\(daemon.log)")
        #expect(check.standardOutput.contains("DSA-3029-1 (fixed in 1.2.1-2.2+wheezy3)"), "\(check.standardOutput)")
    }

    @Test("a source that fails keeps the last good findings; an export that is not a zip is named")
    func failures() async throws {
        let folder = try TemporaryFolder()
        let zip = try await Self.export(["GO-2020-0001"], in: folder)
        let server = try await VersionServer(scenario: ["file": zip])
        let daemon = await started(try DaemonProcess(apps: Self.advisoryApp(
            "gin", version: "1.5.0", ecosystem: "Go", source: server.url("/all.zip"), extra: "app-id = \"github.com/gin-gonic/gin\""
        ), folder: folder))
        defer { daemon.abandon() }
        #expect(try await ssvcctl(daemon, ["check", "gin"]).status == 11)
        try server.set(["body": "<html>maintenance</html>"])
        let broken = try await ssvcctl(daemon, ["check", "gin"])
        #expect(broken.status == 11, "the last good findings are kept: \(broken.standardOutput)")
        #expect(broken.standardOutput.contains("not a zip archive"), "\(broken.standardOutput)")
        try server.set(["status": 503])
        #expect(try await ssvcctl(daemon, ["check", "gin"]).status == 11)
    }

    @Test("advisories unknown are never quiet: a range no order reads gives exit 12, a Nagios warning, a banner line and the metric (issue 51)")
    func unknownNeverQuiet() async throws {
        let folder = try TemporaryFolder()
        let records = folder.url.appendingPathComponent("records")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        // PyPI cannot read "1.x-next": whether 1.0 is affected is not known.
        try #"{"id": "TEST-1", "modified": "2026-01-01T00:00:00Z", "affected": [{"package": {"ecosystem": "PyPI", "name": "demo"}, "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.x-next"}]}]}]}"#
            .write(to: records.appendingPathComponent("TEST-1.json"), atomically: true, encoding: .utf8)
        let app = """
            [[app]]
            name = "demo"
            version = "1.0"
            version-scheme = "pep440"
            advisories = "osv"
            advisories-url = "file://\(records.path)"
            advisories-ecosystem = "PyPI"
            """
        let prom = folder.url.appendingPathComponent("metrics.prom").path
        let daemon = await started(try DaemonProcess(daemon: "metrics-file = \"\(prom)\"", apps: app, folder: folder))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check", "demo"])
        #expect(check.status == 12, "never 0: \(check.standardOutput)")
        #expect(check.standardOutput.contains("advisories unknown"), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("1 ranges not evaluated"), "the note says why: \(check.standardOutput)")
        let nagios = try await ssvcctl(daemon, ["status", "--nagios"])
        #expect(nagios.status == 1 && nagios.standardOutput.hasPrefix("SSVC WARNING - advisories unknown: demo"), "\(nagios.standardOutput)")
        let banner = try await Executable.run("ssvcctl", ["motd", "--socket", daemon.socketPath, "--timeout", "5"])
        #expect(banner.standardOutput.contains("demo: advisories unknown"), "\(banner.standardOutput)")
        #expect(await daemon.wait { ((try? String(contentsOfFile: prom, encoding: .utf8)) ?? "").contains(#"ssvc_advisory_state{app="demo",state="unknown"} 1"#) })
    }

    @Test("a change is said once: a Watch advisory event, a hook with SSVC_ADVISORIES, the journal line; an ignore entry that lapsed is named")
    func reportedOnce() async throws {
        let folder = try TemporaryFolder()
        let records = try Self.recordsFolder([], in: folder)
        let hooks = folder.url.appendingPathComponent("hooks.d").path
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        let recorded = folder.url.appendingPathComponent("recorded").path
        let hook = try folder.file("hooks.d/10-record", """
            #!/bin/sh
            [ "$SSVC_EVENT" = advisory ] && echo "$SSVC_ADVISORY_STATE $SSVC_ADVISORIES" >> '\(recorded)'
            exit 0
            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        // Ignored until yesterday: the entry has lapsed, and the journal says so.
        let yesterday = ISO8601DateFormatter.string(from: Date().addingTimeInterval(-86_400), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let daemon = await started(try DaemonProcess(daemon: "hooks-dir = \"hooks.d\"", apps: Self.advisoryApp(
            "http", version: "0.1.19", ecosystem: "crates.io", source: "file://\(records.path)",
            extra: "ignore-advisories = [{ id = \"CVE-2020-25574\", until = \(yesterday) }]"
        ), folder: folder))
        defer { daemon.abandon() }
        #expect(await daemon.wait { (try? await daemon.statusByApp()["http"]?["advisoryState"] as? String) == "clear" }, "\(daemon.log)")
        let events = folder.url.appendingPathComponent("events").path
        let watch = try ChildProcess(try Executable.path("ssvcctl"), ["--socket", daemon.socketPath, "watch", "http", "--json"], output: events)
        defer { kill(watch.pid, SIGTERM) }  // reaped by ChildProcess when released
        // The advisory event comes once: the watch must be in place first,
        // and nothing tells when it is but an event (issue 49).
        #expect(await daemon.wait(30) {
            _ = try? await ssvcctl(daemon, ["check", "http"])
            return await eventually(within: 2) { ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").contains(#""kind":"check""#) }
        }, "the watch saw a check")

        try Self.record("RUSTSEC-2019-0033").write(to: records.appendingPathComponent("RUSTSEC-2019-0033.json"), atomically: true, encoding: .utf8)
        #expect(try await ssvcctl(daemon, ["check", "http"]).status == 11)
        _ = try await ssvcctl(daemon, ["check", "http"])
        #expect(await daemon.wait { ((try? String(contentsOfFile: recorded, encoding: .utf8)) ?? "").contains("affected RUSTSEC-2019-0033") }, "\(daemon.log)")
        #expect(await daemon.wait { ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").contains(#""kind":"advisory""#) })
        let log = daemon.log
        let said = log.components(separatedBy: "http: 0.1.19 is affected by RUSTSEC-2019-0033 (fixed in 0.1.20): update required; ignore-advisories lapsed for RUSTSEC-2019-0033")
        #expect(said.count == 2, "said once, not at each check: \(log)")
        #expect(log.contains("MESSAGE_ID=\(MessageID.advisories.rawValue)") && log.contains("SSVC_ADVISORIES=RUSTSEC-2019-0033"), "\(log)")
        #expect(log.contains("SSVC_ADVISORY_STATE=affected"))
        let lines = try String(contentsOfFile: recorded, encoding: .utf8).split(separator: "\n")
        #expect(lines == ["clear ", "affected RUSTSEC-2019-0033"], "one hook run per change: \(lines)")
    }

    /// A daemon whose app gin reads the export at `zip`, signed by `keys`.
    func signedGin(_ zip: String, keys: MinisignKeyPair, folder: TemporaryFolder) async throws -> DaemonProcess {
        await started(try DaemonProcess(apps: Self.advisoryApp(
            "gin", version: "1.5.0", ecosystem: "Go", source: "file://\(zip)",
            extra: "app-id = \"github.com/gin-gonic/gin\"\npublic-keys = [\"\(keys.publicKey)\"]"
        ), folder: folder))
    }

    @Test("public-keys: a signed export is read, an altered one or a missing signature is refused and the last good findings kept")
    func signedExport() async throws {
        let keys = try await MinisignKeyPair()
        let folder = try TemporaryFolder()
        let zip = try await Self.export(["GO-2020-0001"], in: folder)
        try await keys.signFile(zip)
        let daemon = try await signedGin(zip, keys: keys, folder: folder)
        defer { daemon.abandon() }
        let good = try await ssvcctl(daemon, ["check", "gin"])
        #expect(good.status == 11, "\(good.standardOutput)\n\(daemon.log)")
        // Another export under the old signature: refused before a record is read.
        _ = try await Self.export(["GO-2020-0001", "RUSTSEC-2019-0033"], in: folder)
        let altered = try await ssvcctl(daemon, ["check", "gin"])
        #expect(altered.status == 11, "the last good findings are kept: \(altered.standardOutput)")
        #expect(altered.standardOutput.contains("signature rejected: the signature by key \(keys.keyID) does not match the file"), "\(altered.standardOutput)")
        try FileManager.default.removeItem(atPath: zip + ".minisig")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: zip)
        let missing = try await ssvcctl(daemon, ["check", "gin"])
        #expect(missing.standardOutput.contains("advisories: signature file://\(zip).minisig: "), "\(missing.standardOutput)")
        try await keys.signFile(zip)
        let again = try await ssvcctl(daemon, ["check", "gin"])
        #expect(again.status == 11)
        #expect(!again.standardOutput.contains("failed check"), "\(again.standardOutput)")
    }

    @Test("public-keys: an older export under its own valid signature is refused as a rollback, the last good findings kept (issue 51)")
    func replayedExport() async throws {
        let keys = try await MinisignKeyPair()
        let folder = try TemporaryFolder()
        let zip = try await Self.export(["GO-2020-0001"], in: folder)
        try await keys.signFile(zip, signedAt: Date().addingTimeInterval(-2 * 86_400))
        let old = folder.url.appendingPathComponent("old.zip").path
        for suffix in ["", ".minisig"] { try FileManager.default.copyItem(atPath: zip + suffix, toPath: old + suffix) }
        let daemon = try await signedGin(zip, keys: keys, folder: folder)
        defer { daemon.abandon() }
        let first = try await ssvcctl(daemon, ["check", "gin"])
        #expect(first.status == 11, "\(first.standardOutput)\n\(daemon.log)")
        _ = try await Self.export(["GO-2020-0001", "RUSTSEC-2019-0033"], in: folder)
        try await keys.signFile(zip)
        let newer = try await ssvcctl(daemon, ["check", "gin"])
        #expect(newer.status == 11 && !newer.standardOutput.contains("failed check"), "\(newer.standardOutput)")
        // The first export again, under its own valid but older signature.
        for suffix in ["", ".minisig"] {
            try FileManager.default.removeItem(atPath: zip + suffix)
            try FileManager.default.copyItem(atPath: old + suffix, toPath: zip + suffix)
        }
        let replayed = try await ssvcctl(daemon, ["check", "gin"])
        #expect(replayed.status == 11, "the last good findings are kept: \(replayed.standardOutput)")
        #expect(
            replayed.standardOutput.contains("signature rejected: signed ") && replayed.standardOutput.contains("refused as a rollback"),
            "\(replayed.standardOutput)"
        )
    }

    @Test("a mirror that is a FIFO or a device is refused at once, naming it; one file of records is read as evaluate reads it; other apps stay answered")
    func specialMirrors() async throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("osv-fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let single = try folder.file("one.json", try Self.record("GO-2020-0001"))
        let apps = [("fifo", fifo), ("zero", "/dev/zero"), ("single", single)].map { name, path in
            Self.advisoryApp(name, version: "1.5.0", ecosystem: "Go", source: "file://\(path)", extra: "advisories-package = \"github.com/gin-gonic/gin\"")
        }.joined(separator: "\n")
        let daemon = await started(try DaemonProcess(daemon: "timeout-seconds = 1", apps: apps, folder: folder))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check"])
        #expect(check.seconds < 5, "nothing waits on the FIFO: \(check.seconds) s")
        #expect(check.status == 11, "one file's record makes its app required: \(check.standardOutput)")
        for path in [fifo, "/dev/zero"] {
            #expect(check.standardOutput.contains("\(path) is neither a folder of records, an export .zip nor a file of records"), "\(check.standardOutput)")
        }
        #expect(!check.standardOutput.contains("\(single) is neither"), "\(check.standardOutput)")
        func threads() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(daemon.process.pid)/status", encoding: .utf8)
            return Int(status.split(separator: "\n").first { $0.hasPrefix("Threads:") }?.split(separator: "\t").last ?? "") ?? 0
        }
        for _ in 0..<5 { _ = try await ssvcctl(daemon, ["check", "fifo"]) }
        let before = try threads()
        for _ in 0..<20 { _ = try await ssvcctl(daemon, ["check", "fifo"]) }
        let after = try threads()
        #expect(after <= before + 2, "no thread left waiting on the FIFO per check: \(before), then \(after)")
    }

    @Test("a Check that takes longer than idle-timeout-seconds still gets its answer")
    func longCheckAnswered() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"2.0"}"#, "delay": 3])
        let daemon = await started(try DaemonProcess(daemon: "idle-timeout-seconds = 1", apps: appTable("slow", url: server.url("/a")), arguments: []))
        defer { daemon.abandon() }
        let check = try await ssvcctl(daemon, ["check", "slow"])
        #expect(check.status == 10, "\(check.standardOutput)\(check.standardError)")
    }
}
