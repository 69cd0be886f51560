import Foundation
import SSVCTestSupport
import Testing

/// Apps of one daemon on one advisory mirror share its download and its
/// pass (issue 55): a real daemon, an export over loopback http.
@Suite("ssvcd: apps on one advisory mirror", .processSlot)
struct MirrorShareTests {
    /// The daemon's "one pass over" lines, each with the packages it read.
    static func passes(_ log: String) -> [(line: String, packages: Int)] {
        log.split(separator: "\n").filter { $0.contains("advisories: one pass over ") }.map { line in
            let count = line.split(separator: " for ").last?.split(separator: " ").first.flatMap { Int($0) } ?? 0
            return (String(line), count)
        }
    }

    /// The export's GETs, each with the ETag it sent (nil: a plain GET, answered whole).
    static func gets(_ server: VersionServer) -> [String?] {
        server.requests().filter { $0["path"] as? String == "/PyPI/all.zip" }.map { ($0["headers"] as? [String: String])?["If-None-Match"] }
    }

    static func downloads(in state: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []).filter { $0.hasPrefix(".advisories-") }
    }

    @Test("ten apps on one export: one download and one pass for all ten; an unchanged export costs no pass, a new one one pass for all ten; its one file goes at the stop")
    func tenApps() async throws {
        let folder = try TemporaryFolder()
        let first = try await AdvisoryTests.export(["PYSEC-2023-74", "GO-2020-0001", "RUSTSEC-2019-0033"], in: folder)
        let server = try await VersionServer(scenario: ["file": first, "etag": "\"v1\""])
        let url = server.url("/PyPI/all.zip")
        // requests 2.30.0 is affected by PYSEC-2023-74 (fixed in 2.31.0); the nine others by nothing.
        let names = ["requests"] + (1...9).map { "pkg\($0)" }
        let apps = names.map { AdvisoryTests.advisoryApp($0, version: $0 == "requests" ? "2.30.0" : "1.0.0", ecosystem: "PyPI", source: url) }
        let daemon = try DaemonProcess(apps: apps.joined(separator: "\n"), folder: folder)
        defer { daemon.abandon() }
        let state = daemon.stateDirectory
        #expect(await daemon.wait(60) { names.allSatisfy { daemon.app($0)?["advisories"] != nil } }, "\(daemon.log)")
        #expect(Self.gets(server).filter { $0 == nil }.count == 1, "one download for ten apps: \(Self.gets(server))")
        let atStart = Self.passes(daemon.log)
        // Their versions are in the configuration: the first pass reads all
        // ten, though only eight checks run at once.
        #expect(atStart.count == 1 && atStart.first?.packages == 10, "\(atStart.map(\.line))")
        #expect(Self.downloads(in: state).count == 1 && Self.downloads(in: state)[0].hasSuffix(".zip"), "one file: \(Self.downloads(in: state))")

        let socket = ["--socket", daemon.socketPath, "--timeout", "60"]
        let affected = try await Executable.run("ssvcctl", socket + ["check"])
        #expect(affected.status == 11, "requests' fix counts as offered (no version server): \(affected.standardOutput)")
        #expect(affected.standardOutput.contains("PYSEC-2023-74"), "\(affected.standardOutput)")
        #expect(Self.passes(daemon.log).count == atStart.count, "unchanged (304): no pass\n\(daemon.log)")
        #expect(Self.gets(server).filter { $0 == nil }.count == 1 && Self.gets(server).count > 1, "\(Self.gets(server))")

        // A new export: one download, one pass for all ten.
        let otherFolder = try TemporaryFolder()
        let second = try await AdvisoryTests.export(["GO-2020-0001"], in: otherFolder)
        try server.set(["file": second, "etag": "\"v2\""])
        let asked = Self.gets(server).count
        let clear = try await Executable.run("ssvcctl", socket + ["check"])
        #expect(clear.status == 0, "requests is no longer affected: \(clear.standardOutput)")
        let after = Self.passes(daemon.log).dropFirst(atStart.count)
        #expect(after.count == 1 && after.first?.packages == 10, "\(after.map(\.line))")
        #expect(Self.gets(server).dropFirst(asked).filter { $0 == "\"v1\"" }.count == 1, "one GET answered with v2, the others 304: \(Self.gets(server))")

        #expect(await daemon.stop() == 0)
        #expect(Self.downloads(in: state).isEmpty, "removed at the stop: \(Self.downloads(in: state))")
    }
}
