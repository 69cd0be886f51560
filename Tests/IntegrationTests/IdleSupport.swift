import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// A daemon whose first check is done and whose next is an hour away, read
/// from outside through /proc: no socket call, which would count as work.
func idleDaemon() async throws -> DaemonProcess {
    let folder = try TemporaryFolder()
    let document = "file://" + (try folder.file("r.json", goodBody))
    let daemon = try DaemonProcess(apps: appTable("idle", url: document).replacingOccurrences(of: "daily", with: "hourly"), folder: folder)
    try await #require(daemon.wait { daemon.app("idle")?["lastSuccess"] != nil }, "the first check did not succeed")
    return daemon
}

/// Context switches, voluntary and not, of each live thread of `pid`.
func switchesByThread(_ pid: pid_t) -> [String: Int] {
    var switches: [String: Int] = [:]
    for thread in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else { continue }
        switches[thread] = status.split(separator: "\n")
            .filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
            .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
            .reduce(0, +)
    }
    return switches
}

/// RssFile of /proc/PID/status, in KiB.
func residentFileKiB(_ pid: pid_t) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("RssFile:") } ?? ""
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}

/// glibc's malloc arenas besides the main one in `pid`: each is a heap
/// mapped at a 64 MiB boundary and reserved 64 MiB long (usable part and
/// reserve as two mappings, or one).
func secondaryArenas(_ pid: pid_t) -> Int {
    let heapSize = 64 << 20
    let ranges = ((try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line -> (Int, Int, Bool)? in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        let bounds = fields.first?.split(separator: "-").compactMap { Int($0, radix: 16) } ?? []
        guard bounds.count == 2 else { return nil }
        return (bounds[0], bounds[1], fields.count == 5)  // no path: anonymous
    }
    let ends = Set(ranges.map(\.1))
    return ranges.filter { start, _, anonymous in anonymous && start % heapSize == 0 && ends.contains(start + heapSize) }.count
}
