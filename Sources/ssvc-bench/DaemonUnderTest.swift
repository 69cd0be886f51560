@preconcurrency import Glibc
import SSVCControl
import SSVCCore
import SSVCPosix

/// An `ssvcd` the benchmark configures, starts and reads from /proc.
final class DaemonUnderTest {
    let folder: String
    let socketPath: String
    private let ssvcd: String
    private let configuration: String
    private(set) var process: ChildProcess
    private(set) var startedAt: Double

    /// A daemon with `apps` apps of SSVC's format on `url` (none: apps
    /// with no version server, for advisories only), hourly, checked at
    /// once on start. `notifySocket` is passed as NOTIFY_SOCKET;
    /// `daemonSettings` are more `[daemon]` lines, `appSettings` more lines
    /// of each app.
    init(
        ssvcd: String, apps: Int, url: String?, minimumInterval: Int = 30, notifySocket: String? = nil, daemonSettings: String = "",
        appSettings: String = ""
    ) throws(BenchError) {
        var template = Array("/tmp/ssvc-bench.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot make a temporary folder") }
        folder = String(cString: made)
        socketPath = folder + "/socket"
        var text = """
            [daemon]
            state-dir = "state"
            socket = "socket"
            first-check-window-seconds = 0
            catch-up-window-seconds = 0
            min-interval-seconds = \(minimumInterval)
            \(daemonSettings)

            """
        if geteuid() != 0, let group = getgrgid(getegid()) {
            text += "control-group = \"\(String(cString: group.pointee.gr_name))\"\n"
        }
        // Past a main file's 1 MiB, one file per app in apps.d.
        let inFolder = apps > 5_000
        if inFolder {
            text += "apps-dir = \"apps.d\"\n"
            guard mkdir(folder + "/apps.d", 0o755) == 0 else { throw BenchError("cannot make \(folder)/apps.d") }
        }
        for index in 0..<apps {
            let server = url.map { "url = \"\($0)\"\n" } ?? ""
            let app = "name = \"app\(index)\"\n\(server)schedule = \"hourly\"\nversion = \"1.0\"\n\(appSettings)\n"
            if inFolder {
                try Self.writeFile(app, to: folder + "/apps.d/app\(index).toml")
            } else {
                text += "\n[[app]]\n" + app
            }
        }
        self.ssvcd = ssvcd
        configuration = folder + "/ssvcd.toml"
        try Self.writeFile(text, to: configuration)
        (process, startedAt) = try Self.spawn(ssvcd, configuration, notifySocket: notifySocket, log: folder + "/ssvcd.log")
    }

    private static func writeFile(_ text: String, to path: String) throws(BenchError) {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    /// What the daemon said (`--log-target stderr`).
    var log: String { (try? BoundedReader.read(path: folder + "/ssvcd.log", limit: 64 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    private static func spawn(_ ssvcd: String, _ configuration: String, notifySocket: String?, log: String) throws(BenchError) -> (ChildProcess, Double) {
        var environment: [String: String] = [:]
        if let notifySocket { environment["NOTIFY_SOCKET"] = notifySocket }
        let startedAt = MonotonicClock.seconds()
        do {
            let process = try ChildProcess(
                [ssvcd, "--config", configuration, "--log-target", "stderr"],
                environment: ProcessEnvironment.variables().merging(environment) { $1 }, error: .file(log)
            )
            return (process, startedAt)
        } catch {
            throw BenchError(error.description)
        }
    }

    /// Stops the daemon and starts it again on the same folder and state.
    func restart(notifySocket: String? = nil) throws(BenchError) {
        stop()
        (process, startedAt) = try Self.spawn(ssvcd, configuration, notifySocket: notifySocket, log: folder + "/ssvcd.log")
    }

    deinit {
        if process.isRunning { kill(process.pid, SIGKILL) }
        process.wait()
        _ = try? ChildProcess(["rm", "-rf", folder]).wait()
    }

    /// A connection once the socket answers (within 10 s).
    func connect() throws(BenchError) -> VarlinkClient {
        let deadline = MonotonicClock.seconds() + 10
        while true {
            if let connection = try? VarlinkClient(path: socketPath) { return connection }
            guard process.isRunning else { throw BenchError("ssvcd exited during start-up") }
            guard MonotonicClock.seconds() < deadline else { throw BenchError("ssvcd's socket did not answer within 10 s") }
            usleep(2_000)
        }
    }

    /// Waits until every app reports a finished check (within `seconds`),
    /// calling `poll` before each status query. `member` is the time
    /// that says so: `advisoriesChecked` for an app's advisories.
    func waitForFirstChecks(within seconds: Double = 120, member: String = "lastSuccess", poll: () -> Void = {}) throws(BenchError) {
        let connection = try connect()
        let deadline = MonotonicClock.seconds() + seconds
        while true {
            poll()
            let apps = try connection.apps(.getStatus)
            if apps.allSatisfy({ $0.member(member).map { (try? $0.string()) != nil } ?? false }) { return }
            guard MonotonicClock.seconds() < deadline else { throw BenchError("the first checks did not all succeed within \(Int(seconds)) s") }
            usleep(20_000)
        }
    }

    func stop() {
        kill(process.pid, SIGTERM)
        process.wait()
    }

    /// Resident memory in KiB, from /proc/PID/status and smaps_rollup.
    struct Memory: CustomStringConvertible {
        var rss = 0, anonymous = 0, file = 0, proportional = 0

        func max(_ other: Memory) -> Memory {
            other.rss > rss ? other : self
        }

        var description: String {
            "RSS \(String(mebibytes: rss)) MiB (anonymous \(String(mebibytes: anonymous)), "
                + "file-backed \(String(mebibytes: file)), PSS \(String(mebibytes: proportional)))"
        }
    }

    func memory() -> Memory {
        Memory(
            rss: ProcFile.statusNumber(process.pid, "VmRSS") ?? 0, anonymous: ProcFile.statusNumber(process.pid, "RssAnon") ?? 0,
            file: ProcFile.statusNumber(process.pid, "RssFile") ?? 0,
            proportional: ProcFile.firstNumber(in: "/proc/\(process.pid)/smaps_rollup", key: "Pss:") ?? 0
        )
    }

    /// The peak resident set (VmHWM) in KiB: since the start, or since
    /// the last `resetPeak()`.
    var peakRSS: Int { ProcFile.statusNumber(process.pid, "VmHWM") ?? 0 }

    /// Sets VmHWM to the present RSS (`clear_refs`, Linux 4.0 and later);
    /// false when the kernel refused.
    func resetPeak() -> Bool {
        let descriptor = open("/proc/\(process.pid)/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// Minor and major page faults so far (minflt and majflt of stat(5)).
    func faults() -> (minor: Int, major: Int) {
        let fields = statFields()
        guard fields.count > 9 else { return (0, 0) }
        return (Int(fields[7]) ?? 0, Int(fields[9]) ?? 0)
    }

    /// The fields of /proc/PID/stat after the command name: the first is
    /// field 3 of stat(5), the state.
    private func statFields() -> [Substring] {
        guard let stat = ProcFile.read("/proc/\(process.pid)/stat"), let close = stat.lastIndex(of: ")") else { return [] }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// Resident KiB per mapped file (its base name), and "anonymous" for
    /// the heap, stacks and other memory of no file.
    func residentByMapping() -> [(name: String, kibibytes: Int)] {
        guard let smaps = ProcFile.read("/proc/\(process.pid)/smaps") else { return [] }
        var sizes: [String: Int] = [:]
        var current = "anonymous"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                let path = fields.count >= 6 ? String(fields[5]) : ""
                current = path.hasPrefix("/") ? String(path.split(separator: "/").last ?? "") : "anonymous"
            } else if fields.first == "Rss:", fields.count >= 2, let size = Int(fields[1]) {
                sizes[current, default: 0] += size
            }
        }
        return sizes.map { ($0.key, $0.value) }.sorted { $0.kibibytes > $1.kibibytes }
    }

    var threads: Int { ProcFile.statusNumber(process.pid, "Threads") ?? 0 }

    /// Per live thread, by thread id: context switches (voluntary and not),
    /// and nanoseconds on a CPU (schedstat).
    func threadActivity() -> [String: (switches: Int, cpuNanoseconds: Int)] {
        var activity: [String: (switches: Int, cpuNanoseconds: Int)] = [:]
        for name in (try? FileSystem.names(in: "/proc/\(process.pid)/task")) ?? [] {
            let folder = "/proc/\(process.pid)/task/\(name)/"
            let switches = (ProcFile.firstNumber(in: folder + "status", key: "voluntary_ctxt_switches:") ?? 0)
                + (ProcFile.firstNumber(in: folder + "status", key: "nonvoluntary_ctxt_switches:") ?? 0)
            let onCPU = ProcFile.read(folder + "schedstat")?.split(separator: " ").first.flatMap { Int($0) } ?? 0
            activity[name] = (switches, onCPU)
        }
        return activity
    }

    /// User + system CPU seconds the daemon has used.
    func cpuSeconds() -> Double {
        let fields = statFields()
        guard fields.count > 12 else { return 0 }
        // Fields 14 and 15 of stat(5), utime and stime.
        let ticks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
