import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// A slow disk for one process: `strace` attached to it, delaying every
/// fsync and fdatasync by `seconds` and logging them and its renames to `trace`. Tests
/// that need a write to be under way when something else happens use it,
/// so that the order of events, not a clock, shows what waited for what.
struct SlowDisk {
    let tracer: ChildProcess
    let trace: String

    init(pid: pid_t, seconds: Double, trace: String) async throws {
        self.trace = trace
        tracer = try ChildProcess("/usr/bin/strace", [
            "-f", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", "-e", "inject=fsync,fdatasync:delay_enter=\(Int(seconds * 1_000_000))",
            "-p", "\(pid)", "-o", trace,
        ])
        let attached = await eventually(within: 10, every: 0.05) { isTraced(pid) }
        if !attached { kill(tracer.pid, SIGKILL) }
        try #require(attached, "strace did not attach to \(pid)")
    }

    /// Detaches, and returns the lines it logged.
    func end() async -> [Substring] {
        kill(tracer.pid, SIGINT)
        _ = await tracer.exitCode()
        return ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
    }
}

/// Whether a tracer (strace) is attached to `pid`, as its status says.
func isTraced(_ pid: pid_t) -> Bool {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n").contains { $0.hasPrefix("TracerPid:") && !$0.hasSuffix("\t0") }
}
