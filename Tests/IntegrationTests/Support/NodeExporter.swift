import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// Debian's `prometheus-node-exporter` on a loopback port, with only its
/// textfile collector, reading `folder`: what a fleet's Prometheus scrapes.
final class NodeExporter {
    static let binary = "/usr/bin/prometheus-node-exporter"
    let process: ChildProcess
    let port: Int
    let logPath: String

    init(textfiles folder: String, logFolder: TemporaryFolder) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "\(Self.binary) is missing: run 'make test'")
        port = try freeLoopbackPort()
        logPath = logFolder.url.appendingPathComponent("node-exporter.log").path
        process = try ChildProcess(
            [Self.binary, "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
             "--collector.textfile.directory=\(folder)"],
            error: .file(logPath)
        )
        let answered = await eventually(within: 10, every: 0.05) { (try? await scrape()) != nil }
        try #require(answered, "node_exporter did not answer: \(log)")
    }

    /// Killed when the test lets go of it (and reaped by `ChildProcess`).
    deinit { kill(process.pid, SIGKILL) }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `/metrics`, as Prometheus would read it.
    func scrape() async throws -> String {
        let script = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"
        let result = try await Executable.run("/usr/bin/python3", ["-c", script, "http://127.0.0.1:\(port)/metrics"])
        guard result.status == 0 else { throw ScrapeFailed(description: result.standardError) }
        return result.standardOutput
    }

    struct ScrapeFailed: Error, CustomStringConvertible {
        let description: String
    }
}
