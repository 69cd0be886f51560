import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// Issue 51, item 4: a server's text within the size caps costs the daemon
/// a bounded tree, never several times the text, and one read at a time.
/// Before: a 16 MiB API page of `{},` peaked at 1.33 GiB, `1,` at 483 MiB,
/// and three apps reading at once at 1.34 GiB.
@Suite("ssvcd: advisory documents in bounded memory", .processSlot)
struct AdvisoryMemoryTests {
    /// An API answer of just under 16 MiB (the most a page may have): `item` repeated.
    static func page(_ item: String, bytes: Int = (16 << 20) - 64) -> String {
        let count = (bytes - 16) / (item.utf8.count + 1)
        return "{\"vulns\":[" + Array(repeating: item, count: count).joined(separator: ",") + "]}"
    }

    /// A number of the daemon's /proc status, in KiB (`VmHWM`, `VmRSS`).
    static func statusKiB(_ pid: pid_t, _ key: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("\(key):") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
    }

    @Test("four apps at once: 16 MiB pages of {}, of numbers and of 16-byte strings refused by name, 2 MiB of real records read; the reads add under 100 MiB")
    func hostilePages() async throws {
        // Compact, as osv.dev sends it.
        let record = String(
            decoding: try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: Data(try AdvisoryTests.record("PYSEC-2023-74").utf8))),
            as: UTF8.self
        )
        let pages = [
            "empty": Self.page("{}"),
            "numbers": Self.page("1"),
            "strings": Self.page(#""aaaaaaaaaaaaaaaa""#),
            "real": Self.page(record, bytes: 2 << 20),
        ]
        // First every page empty: the daemon's resident set once it has read once.
        let server = try await VersionServer(scenario: ["body": #"{"vulns": []}"#])
        let apps = pages.keys.sorted().map { name in
            """
            [[app]]
            name = "\(name)"
            version = "2.30.0"
            version-scheme = "pep440"
            advisories = "osv"
            advisories-url = "\(server.url("/\(name)"))"
            advisories-ecosystem = "PyPI"
            advisories-package = "requests"
            """
        }.joined(separator: "\n\n")
        let daemon = try DaemonProcess(daemon: "timeout-seconds = 60", apps: apps)
        defer { daemon.abandon() }
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        #expect(try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"]).status == 0)
        let idle = try Self.statusKiB(daemon.process.pid, "VmRSS")
        // VmHWM from here (clear_refs, Linux 4.0 and later).
        try "5".write(toFile: "/proc/\(daemon.process.pid)/clear_refs", atomically: false, encoding: .utf8)

        try server.set(["paths": Dictionary(uniqueKeysWithValues: pages.map { ("/\($0.key)", ["pages": ["": $0.value]]) })])
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check"])
        // Answered, not timed out: three failed checks (12), and the real page's advisory, whose fix makes its app required (11).
        #expect(check.status == 11, "\(check.standardOutput)\(check.standardError)")
        let json = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json"])
        let list = try #require((try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["apps"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: list.compactMap { app in (app["name"] as? String).map { ($0, app) } })
        for name in ["empty", "numbers", "strings"] {
            let app = try #require(byName[name])
            let text = String(decoding: try JSONSerialization.data(withJSONObject: app), as: UTF8.self)
            #expect(text.contains("refused: the document would take more than 48 MiB of memory once read"), "\(name): \(text)")
        }
        let real = try #require(byName["real"])
        #expect(real["advisoryState"] as? String == "affected", "2 MiB of real records is read: \(real)")
        #expect((real["advisories"] as? [[String: Any]])?.map { $0["id"] as? String } == ["PYSEC-2023-74"])

        // A release daemon idles at 5 to 14 MiB: under 100 MiB more keeps it under 128 MiB.
        let peak = try Self.statusKiB(daemon.process.pid, "VmHWM")
        #expect(peak - idle < 100 << 10, "peak RSS \(peak) KiB, \(peak - idle) KiB over the \(idle) KiB after an empty read")
    }
}
