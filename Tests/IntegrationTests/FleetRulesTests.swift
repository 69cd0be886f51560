import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// The shipped Prometheus rules (`etc/prometheus/ssvc.rules.yml`), judged
/// by Debian's `promtool` and run by a real `prometheus` over real
/// node_exporters and real daemons.
@Suite("the fleet's Prometheus rules", .processSlot)
struct FleetRulesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let rules = repository.appendingPathComponent("etc/prometheus/ssvc.rules.yml").path
    static let promtool = "/usr/bin/promtool"
    static let prometheus = "/usr/bin/prometheus"

    @Test("promtool check rules accepts the file, and promtool test rules passes every case of Tests/Fixtures/prometheus")
    func promtool() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool), "\(Self.promtool) is missing: run 'make test'")
        let check = try await Executable.run(Self.promtool, ["check", "rules", Self.rules])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
        #expect(check.standardOutput.contains("SUCCESS: 14 rules found"), "\(check.standardOutput)")
        let tests = Self.repository.appendingPathComponent("Tests/Fixtures/prometheus/ssvc.rules.test.yml").path
        let run = try await Executable.run(Self.promtool, ["test", "rules", tests])
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("SUCCESS"))
    }

    @Test("a real prometheus loading the shipped file splits two real machines by status and version, and alerts for the one that must update")
    func live() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.prometheus), "\(Self.prometheus) is missing: run 'make test'")
        let server = try await VersionServer(scenario: ["paths": [
            "/current": ["body": #"{"SSVCLatestVersionKey":"2.0"}"#],
            "/old": ["body": #"{"SSVCLatestVersionKey":"2.0","SSVCMinimumSupportedVersionNumber":33554432}"#],
        ]])
        // Two machines: each a daemon writing into its node_exporter's textfile folder.
        var machines: [(daemon: DaemonProcess, exporter: NodeExporter)] = []
        for (version, path) in [("2.0", "/current"), ("1.0", "/old")] {
            let folder = try TemporaryFolder()
            let textfiles = folder.url.appendingPathComponent("textfiles").path
            try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
            let daemon = try DaemonProcess(
                daemon: "metrics-file = \"\(textfiles)/ssvc.prom\"",
                apps: appTable("billing", url: server.url(path)).replacingOccurrences(of: "version = \"1.0\"", with: "version = \"\(version)\""),
                folder: folder
            )
            #expect(await daemon.wait { daemon.app("billing")?["lastSuccess"] != nil }, "\(daemon.log)")
            machines.append((daemon, try await NodeExporter(textfiles: textfiles, logFolder: folder)))
        }
        let (current, old) = ("127.0.0.1:\(machines[0].exporter.port)", "127.0.0.1:\(machines[1].exporter.port)")

        let folder = try TemporaryFolder()
        let config = try folder.file("prometheus.yml", """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files:
              - \(Self.rules)
            scrape_configs:
              - job_name: node
                static_configs:
                  - targets: ['\(current)', '\(old)']
            """)
        let port = try freeLoopbackPort()
        let log = folder.url.appendingPathComponent("prometheus.log").path
        let process = try ChildProcess(Self.prometheus, [
            "--config.file=\(config)", "--storage.tsdb.path=\(folder.url.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ], error: log)
        defer { kill(process.pid, SIGKILL) }  // reaped by ChildProcess when released
        func get(_ path: String) async -> [String: Any]? {
            let script = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"
            guard let result = try? await Executable.run("/usr/bin/python3", ["-c", script, "http://127.0.0.1:\(port)\(path)"]), result.status == 0 else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any]
        }
        /// The vector `query` returns now: each sample's labels and value.
        func query(_ expression: String) async -> [(labels: [String: String], value: String)] {
            let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let result = await (get("/api/v1/query?query=\(encoded)")?["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
            return result.map { (($0["metric"] as? [String: String]) ?? [:], (($0["value"] as? [Any])?.last as? String) ?? "") }
        }

        var byStatus: [(labels: [String: String], value: String)] = []
        #expect(await eventually(within: 60, every: 0.5) {
            byStatus = await query("app_status:ssvc_status:sum > 0")
            return byStatus.count == 2
        }, "\(byStatus) \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(Set(byStatus.map { "\($0.labels["app"] ?? "") \($0.labels["status"] ?? "") \($0.value)" })
            == ["billing up-to-date 1", "billing update-required 1"], "\(byStatus)")
        let byVersion = await query("app_version:ssvc_app_info:count")
        #expect(Set(byVersion.map { "\($0.labels["app"] ?? "") \($0.labels["current_version"] ?? "") \($0.value)" })
            == ["billing 1.0 1", "billing 2.0 1"], "\(byVersion)")
        #expect(await query("app:ssvc_update_pending:sum").map(\.value) == ["0"])

        var alerts: [[String: Any]] = []
        #expect(await eventually(within: 30, every: 0.5) {
            alerts = ((await get("/api/v1/alerts")?["data"] as? [String: Any])?["alerts"] as? [[String: Any]]) ?? []
            return alerts.contains { ($0["labels"] as? [String: String])?["alertname"] == "SSVCUpdateRequired" }
        }, "\(alerts)")
        let required = alerts.filter { ($0["labels"] as? [String: String])?["alertname"] == "SSVCUpdateRequired" }
        #expect(required.count == 1, "\(required)")
        let alert = try #require(required.first)
        #expect((alert["labels"] as? [String: String])?["instance"] == old)
        #expect(["pending", "firing"].contains(alert["state"] as? String ?? ""))
        let description = (alert["annotations"] as? [String: String])?["description"] ?? ""
        #expect(description.hasPrefix("\(old) runs billing 1.0, which its version server no longer supports; the latest is 2.0."), "\(description)")
        #expect(!alerts.contains { ($0["labels"] as? [String: String])?["instance"] == current }, "nothing for the machine that is up to date: \(alerts)")
        for machine in machines { #expect(await machine.daemon.stop() == 0) }
    }
}
