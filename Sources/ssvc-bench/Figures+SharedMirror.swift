@preconcurrency import Glibc
import Synchronization
import SSVCPosix

extension DaemonFigures {
    /// Ten apps on one export over loopback http (issue 55): what their
    /// first checks cost together (requests, bytes served, the daemon's
    /// passes and the records they parsed). Each app asks about a package
    /// of its own (its name, `advisories-package` left to its default).
    /// `MirrorShareTests` shows that an unchanged export then costs no pass.
    func sharedMirror(export: String, ecosystem: String, apps: Int = 10) throws(BenchError) {
        let body: [UInt8]
        do {
            body = try BoundedReader.read(path: export, limit: 2 << 30)
        } catch {
            throw BenchError("\(export): \(error.description)")
        }
        let served = Mutex<(requests: Int, bytes: Int)>((0, 0))
        let whole = Array("HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        let server = try LoopbackServer { _ in
            served.withLock {
                $0.requests += 1
                $0.bytes += whole.count
            }
            return .send(whole)
        }
        defer { server.shutdown() }
        let url = "http://127.0.0.1:\(server.port)/\(ecosystem)/all.zip"
        let started = MonotonicClock.seconds()
        let daemon = try advisoryDaemon(apps: apps, source: url, ecosystem: ecosystem, package: nil, minimumInterval: 30)
        try daemon.waitForFirstChecks(member: "advisoriesChecked")
        let seconds = MonotonicClock.seconds() - started
        let first = served.withLock { $0 }
        let passes = Self.passLines(daemon.log)
        daemon.stop()
        report(
            "\(apps) apps on one advisory export",
            "first checks of all \(apps) in \(String(format2: seconds)) s: \(first.requests) request\(first.requests == 1 ? "" : "s"), "
                + "\(String(format1: Double(first.bytes) / 1_048_576)) MiB downloaded, \(passes.count) pass\(passes.count == 1 ? "" : "es") "
                + "(\(passes.map(\.summary).joined(separator: "; ")))",
            target: "one download and one pass for all \(apps) (issue 55)",
            method: "release ssvcd, \(apps) apps with advisories only, each its own \(ecosystem) package (app0…), advisories-url one export "
                + "served whole over loopback http (\(export)), their first checks at start; passes from the daemon's \"one pass over\" lines"
        )
    }

    /// The daemon's passes over a mirror: "N records … (P parsed) for K packages".
    private static func passLines(_ log: String) -> [(line: String, summary: String)] {
        log.split(separator: "\n").compactMap { line in
            guard let start = line.firstRange(of: "one pass over ") else { return nil }
            let text = line[start.upperBound...]
            let records = text.split(separator: " ").first ?? "?"
            let parsed = text.split(separator: "(").dropFirst().first?.split(separator: " ").first ?? "?"
            let packages = text.split(separator: " for ").last?.split(separator: " ").first ?? "?"
            return (String(line), "\(records) records read, \(parsed) parsed, for \(packages) packages")
        }
    }
}
