@preconcurrency import Glibc
import SSVCControl
import SSVCPosix

/// The daemon's figures (SPEC §11), each printed as one line with the
/// machine and the method.
struct DaemonFigures {
    let ssvcd: String
    let server: LoopbackServer
    let idleSeconds: Int

    static let response = """
        {"SSVCLatestVersionKey": "1.1", "SSVCLatestVersionNumber": 17858560,
         "SSVCMinimumSupportedVersionNumber": 16809984, "SSVCLatestVersionAvailableSince": 1388750400}
        """

    func report(_ label: String, _ figure: String, target: String, method: String) {
        print("\(label): \(figure) (target \(target)) [\(Machine.summary); \(method)]")
        fflush(stdout)
    }

    /// Memory 15 s after the last activity (the first checks, then the
    /// benchmark's last status query), with the peak while the first checks
    /// ran; for one app the resident set by mapping; for 1 and 1,000 apps
    /// the wake-ups while idle.
    func footprint(apps: Int) throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: apps, url: server.url)
        var peak = DaemonUnderTest.Memory()
        try daemon.waitForFirstChecks { peak = peak.max(daemon.memory()) }
        sleep(Self.settle)
        let memory = daemon.memory()
        let plural = apps == 1 ? "" : "s"
        report(
            "idle RSS, \(apps) app\(plural)",
            "\(memory) (while the first checks ran: RSS \(String(mebibytes: peak.rss)), anonymous \(String(mebibytes: peak.anonymous))), \(daemon.threads) threads",
            target: apps >= 1_000 ? "≤ 14 MiB" : "≤ 6 MiB, anonymous ≤ 2.5",
            method: "release ssvcd, /proc/PID/status and smaps_rollup \(Self.settle) s after every app's first check over http://127.0.0.1 "
                + "succeeded and the last status query; the peak sampled at each query while they ran"
        )
        if apps == 1 {
            let parts = daemon.residentByMapping().filter { $0.kibibytes >= 100 }
            report(
                "idle RSS by mapping, 1 app", parts.map { "\($0.name) \(String(mebibytes: $0.kibibytes))" }.joined(separator: ", ") + " MiB",
                target: "≤ 6 MiB in all",
                method: "Rss of each mapping in /proc/PID/smaps at the same moment, grouped by file; anonymous is heap, stacks and data"
            )
        }
        if apps == 1 || apps >= 1_000 { wakeUps(of: daemon, apps: apps) }
        daemon.stop()
    }

    /// Seconds between the last activity and an idle reading: the daemon
    /// gives memory back 10 s after its last work.
    static let settle: UInt32 = 15

    private func wakeUps(of daemon: DaemonUnderTest, apps: Int) {
        let before = daemon.threadActivity()
        sleep(UInt32(idleSeconds))
        let after = daemon.threadActivity()
        let switches = after.reduce(0) { $0 + $1.value.switches - (before[$1.key]?.switches ?? 0) }
        let busy = after.reduce(0) { $0 + $1.value.cpuNanoseconds - (before[$1.key]?.cpuNanoseconds ?? 0) }
        let woken = after.filter { $0.value.switches != before[$0.key]?.switches }.count
        report(
            "wake-ups while idle, \(apps) app\(apps == 1 ? "" : "s")",
            "\(switches) context switches in \(idleSeconds) s, in \(woken) of \(after.count) threads, \(busy / 1_000) µs on a CPU",
            target: "0",
            method: "voluntary + involuntary context switches and schedstat run time of every thread in /proc/PID/task, "
                + "from \(Self.settle) s after the last activity, next check an hour away, no WATCHDOG_USEC"
        )
    }

    /// Memory while checks run back to back and after the daemon has given
    /// it back, and the page faults each check costs: the first after the
    /// release maps back the code it needs.
    func burst(checks: Int = 200) throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: 1, url: server.url, minimumInterval: 0)
        try daemon.waitForFirstChecks()
        sleep(Self.settle)
        let idle = daemon.memory()
        let message = VarlinkClient.message(.check)
        let start = daemon.faults()
        var first = start, end = start, peak = idle
        do {
            let connection = try daemon.connect()
            try connection.roundTrip(message)
            first = daemon.faults()
            for index in 1..<checks {
                try connection.roundTrip(message)
                if index % 10 == 0 { peak = peak.max(daemon.memory()) }
            }
            end = daemon.faults()
        }
        sleep(Self.settle)
        let after = daemon.memory()
        let steady = Double(end.minor - first.minor) / Double(checks - 1)
        report(
            "memory through a burst of \(checks) checks, 1 app",
            "idle before: \(idle); peak during: \(peak); \(Self.settle) s after: \(after)",
            target: "back to ≤ 6 MiB",
            method: "Varlink Check calls back to back over http://127.0.0.1, memory sampled every 10 calls"
        )
        report(
            "page faults per check",
            "first after the release \(first.minor - start.minor) minor, \(first.major - start.major) major; "
                + "then \(String(format1: steady)) minor, \(end.major - first.major) major in \(checks - 1)",
            target: "no major faults",
            method: "minflt and majflt of /proc/PID/stat around each Varlink Check call"
        )
        daemon.stop()
    }

    /// Time from just before exec to READY=1 on NOTIFY_SOCKET, with 10
    /// apps and with 1,000 (issue 55's goals).
    func readiness(runs: Int = 20) throws(BenchError) {
        for (apps, target) in [(10, "≤ 10 ms"), (1_000, "≤ 50 ms")] {
            let times = try readyTimes(runs: runs, within: 10) { (notifySocket: String) throws(BenchError) in
                try DaemonUnderTest(ssvcd: ssvcd, apps: apps, url: server.url, notifySocket: notifySocket)
            }
            report(
                "exec to READY=1, \(apps) apps", "median \(milliseconds(times[times.count / 2])) ms, worst \(milliseconds(times.last!)) ms",
                target: target,
                method: "\(runs) starts, posix_spawn to the datagram on NOTIFY_SOCKET, fresh state each time"
            )
        }
    }

    /// Time from exec to READY=1 of a restart that finds `apps` phased
    /// offers pending in its state file: each must be settled again, and
    /// none may cost a write of its own.
    func readinessWithPendingOffers(apps: Int = 2_000) throws(BenchError) {
        let now = Int(time(nil))
        let server = try LoopbackServer(body: #"{"SSVCLatestVersionKey": "1.1", "SSVCLatestVersionAvailableSince": \#(now)}"#)
        defer { server.shutdown() }
        let daemon = try DaemonUnderTest(
            ssvcd: ssvcd, apps: apps, url: server.url, daemonSettings: "rollout-position = 0.987654321", appSettings: "phased-rollout-seconds = 604800"
        )
        try daemon.waitForFirstChecks(within: 300)
        let pending = try daemon.connect().apps(.getStatus).filter { (try? $0.member("pendingVersion")?.string()) != nil }.count
        guard pending == apps else { throw BenchError("\(pending) of \(apps) offers pending after the first checks") }
        let times = try readyTimes(runs: 3, within: 120) { (notifySocket: String) throws(BenchError) in
            try daemon.restart(notifySocket: notifySocket)
            return daemon
        }
        daemon.stop()
        report(
            "exec to READY=1, \(apps) apps with a phased offer pending each", "median \(milliseconds(times[1])) ms, worst \(milliseconds(times[2])) ms",
            target: "well inside systemd's 90 s start limit",
            method: "3 restarts on the same state file, posix_spawn to the datagram on NOTIFY_SOCKET"
        )
    }

    /// `runs` times: `start` runs a daemon told NOTIFY_SOCKET; the
    /// milliseconds from its exec to READY=1, sorted. A daemon `start`
    /// made anew is killed when the next replaces it.
    private func readyTimes(
        runs: Int, within seconds: Double, _ start: (String) throws(BenchError) -> DaemonUnderTest
    ) throws(BenchError) -> [Double] {
        let listener = try NotifySocket()
        var times: [Double] = []
        for _ in 0..<runs {
            let daemon = try start(listener.path)
            guard let at = listener.waitForReady(within: seconds) else { throw BenchError("no READY=1 within \(Int(seconds)) s") }
            times.append((at - daemon.startedAt) * 1_000)
        }
        return times.sorted()
    }

    /// GetStatus round trips from one client, then calls per second from 32.
    func control() throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: 1, url: server.url)
        try daemon.waitForFirstChecks()
        let connection = try daemon.connect()
        let message = VarlinkClient.message(.getStatus)
        for _ in 0..<2_000 { try connection.roundTrip(message) }
        var latencies: [Double] = []
        latencies.reserveCapacity(20_000)
        for _ in 0..<20_000 {
            let start = MonotonicClock.seconds()
            try connection.roundTrip(message)
            latencies.append((MonotonicClock.seconds() - start) * 1e6)
        }
        latencies.sort()
        let p50 = latencies[latencies.count / 2], p99 = latencies[latencies.count * 99 / 100]
        report(
            "GetStatus round trip, one client", "p50 \(Int(p50)) µs, p99 \(Int(p99)) µs",
            target: "p99 ≤ 1 ms",
            method: "20,000 sequential calls on one connection after 2,000 warm-up calls, 1 app, release build"
        )

        let seconds = 5.0
        let calls = try LoadGenerator(path: daemon.socketPath, clients: 32, message: message).run(seconds: seconds)
        report(
            "GetStatus throughput, 32 clients", "\(Int(Double(calls) / seconds)) calls/s",
            target: "≥ 50,000 calls/s",
            method: "32 threads of a Swift load generator, one connection each, back-to-back calls for \(Int(seconds)) s on the same machine"
        )
        daemon.stop()
    }

    /// Six local clients that send GetStatus calls as fast as the daemon
    /// takes them and never read a reply: what it costs the daemon, and
    /// another client's GetStatus meanwhile.
    func neverReadingClients(seconds: Double = 6) throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: 2, url: server.url)
        try daemon.waitForFirstChecks()
        let message = VarlinkClient.message(.getStatus)
        let block = Array([[UInt8]](repeating: message, count: 1_000).joined())
        var hogs: [Int32] = []
        defer { hogs.forEach { close($0) } }
        for _ in 0..<6 {
            guard let descriptor = try? UnixSocket.connected(to: daemon.socketPath) else { throw BenchError("cannot connect to \(daemon.socketPath)") }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            hogs.append(descriptor)
        }
        let probe = try daemon.connect()
        let before = daemon.memory()
        var taken = 0
        var latencies: [Double] = []
        let end = MonotonicClock.seconds() + seconds
        while MonotonicClock.seconds() < end {
            for descriptor in hogs {
                let count = block.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                if count > 0 { taken += count }
            }
            let start = MonotonicClock.seconds()
            try probe.roundTrip(message)
            latencies.append((MonotonicClock.seconds() - start) * 1e3)
        }
        let after = daemon.memory()
        latencies.sort()
        report(
            "six clients that never read",
            "RSS \(String(mebibytes: before.rss)) → \(String(mebibytes: after.rss)) MiB, \(taken / 1_024) KiB of calls read; another client's GetStatus "
                + "p50 \(String(format1: latencies[latencies.count / 2] * 1_000)) µs, p99 \(String(format1: latencies[latencies.count * 99 / 100] * 1_000)) µs, "
                + "max \(String(format1: latencies.last ?? 0)) ms over \(latencies.count) calls",
            target: "flat memory, others under 10 ms",
            method: "6 non-blocking connections sending 1,000 pipelined GetStatus calls whenever the socket takes them, for \(Int(seconds)) s, 2 apps, release build"
        )
        daemon.stop()
    }

    /// One client that pipelines `holds` Hold calls, as many as the socket
    /// takes, on `apps` apps: what the daemon writes per hold, and another
    /// client's GetStatus meanwhile (issue 52: one state and metrics file
    /// per hold wrote 6.4 MB a hold at 10,000 apps, and GetStatus waited 23 s).
    func holdStorm(apps: Int = 10_000, holds: Int = 1_000) throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: apps, url: server.url, daemonSettings: "metrics-file = \"ssvc.prom\"")
        try daemon.waitForFirstChecks(within: 300)
        // The first checks' batched write has ended.
        usleep(2_500_000)
        let storm: Int32
        do {
            storm = try UnixSocket.connected(to: daemon.socketPath)
        } catch {
            throw BenchError("cannot connect to \(daemon.socketPath): \(error)")
        }
        defer { close(storm) }
        _ = fcntl(storm, F_SETFL, fcntl(storm, F_GETFL) | O_NONBLOCK)
        let calls = (0..<holds).map { VarlinkClient.message(.hold, parameters: ["app": "app\($0 % apps)", "version": "0.9"]) }
        let block = Array(calls.joined())
        let probe = try daemon.connect()
        let status = VarlinkClient.message(.getStatus, parameters: ["app": "app1"])
        let writtenBefore = ProcFile.firstNumber(in: "/proc/\(daemon.process.pid)/io", key: "write_bytes:") ?? 0
        var (sent, answered) = (0, 0)
        var latencies: [Double] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let start = MonotonicClock.seconds()
        while answered < holds {
            if sent < block.count {
                let count = block[sent...].withUnsafeBytes { send(storm, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                if count > 0 { sent += count }
            }
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(storm, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard count > 0 else { break }
                answered += buffer[..<count].filter { $0 == 0 }.count
            }
            let asked = MonotonicClock.seconds()
            try probe.roundTrip(status)
            latencies.append((MonotonicClock.seconds() - asked) * 1e3)
            guard MonotonicClock.seconds() - start < 300 else { throw BenchError("\(answered) of \(holds) holds answered in 300 s") }
        }
        let seconds = MonotonicClock.seconds() - start
        // The metrics file follows within a second.
        usleep(1_500_000)
        let written = (ProcFile.firstNumber(in: "/proc/\(daemon.process.pid)/io", key: "write_bytes:") ?? 0) - writtenBefore
        let sizes = ["state/state.json", "ssvc.prom"].map { name in
            var info = stat()
            return stat(daemon.folder + "/" + name, &info) == 0 ? Int(info.st_size) : 0
        }
        latencies.sort()
        report(
            "\(holds) holds pipelined, \(apps) apps",
            "\(String(mebibytes: written / 1_024)) MiB written (\(written / holds / 1_024) KiB a hold), \(Int(Double(holds) / seconds)) holds/s; "
                + "another client's GetStatus p50 \(String(format1: latencies[latencies.count / 2])) ms, max \(String(format1: latencies.last ?? 0)) ms over \(latencies.count) calls",
            target: "under 100 MB for 1,000 holds, GetStatus under 100 ms",
            method: "one non-blocking connection sending every Hold call as fast as the socket takes them, another timing GetStatus(app1) "
                + "back to back; write_bytes from /proc/PID/io; a state file of \(String(format1: Double(sizes[0]) / 1_048_576)) MiB, "
                + "a metrics file of \(String(format1: Double(sizes[1]) / 1_048_576)) MiB; release build"
        )
        daemon.stop()
    }

    /// The daemon's CPU for 1,000 checks against `curl -s URL | jq .`.
    func checkCost(checks: Int = 1_000) throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: 1, url: server.url, minimumInterval: 0)
        try daemon.waitForFirstChecks()
        let connection = try daemon.connect()
        let message = VarlinkClient.message(.check)
        for _ in 0..<20 { try connection.roundTrip(message) }
        let cpuBefore = daemon.cpuSeconds()
        let wallBefore = MonotonicClock.seconds()
        for _ in 0..<checks { try connection.roundTrip(message) }
        let daemonCPU = (daemon.cpuSeconds() - cpuBefore) / Double(checks)
        let daemonWall = (MonotonicClock.seconds() - wallBefore) / Double(checks)
        daemon.stop()

        let childrenBefore = childrenCPUSeconds()
        for _ in 0..<checks { try curlIntoJQ(server.url) }
        let pipelineCPU = (childrenCPUSeconds() - childrenBefore) / Double(checks)
        report(
            "CPU per check", "ssvcd \(microseconds(daemonCPU)) µs (\(microseconds(daemonWall)) µs wall), curl|jq \(microseconds(pipelineCPU)) µs: "
                + "ssvcd uses 1/\(String(format1: pipelineCPU / max(daemonCPU, 1e-9))) of curl|jq",
            target: "≤ 1/20 of curl|jq",
            method: "\(checks) Varlink Check calls, user+sys from /proc/PID/stat (state written and fsynced each time, log to stderr), "
                + "beside \(checks) runs of curl -s URL | jq . (getrusage of the children), loopback HTTP/1.1 server"
        )
    }

    private func curlIntoJQ(_ url: String) throws(BenchError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let curl: ChildProcess
        do {
            curl = try ChildProcess(["curl", "-s", url], output: .descriptor(ends[1]))
        } catch {
            close(ends[0]); close(ends[1])
            throw BenchError("\(error) (make bench installs curl and jq)")
        }
        close(ends[1])
        let jq = try? ChildProcess(["jq", "."], input: .descriptor(ends[0]))
        close(ends[0])
        let curlStatus = curl.wait()
        guard let jq else { throw BenchError("cannot start jq (make bench installs curl and jq)") }
        let jqStatus = jq.wait()
        guard curlStatus == .exited(0), jqStatus == .exited(0) else { throw BenchError("curl|jq failed: curl \(curlStatus), jq \(jqStatus)") }
    }

    private func milliseconds(_ value: Double) -> String { String(format1: value) }
    private func microseconds(_ seconds: Double) -> Int { Int((seconds * 1e6).rounded()) }
}
/// A datagram socket standing in for systemd's NOTIFY_SOCKET.
final class NotifySocket {
    let path: String
    private let descriptor: Int32

    init() throws(BenchError) {
        path = "/tmp/ssvc-bench-notify-\(getpid())"
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, UnixSocket.bind(descriptor, to: path) == 0 else {
            throw BenchError("cannot bind \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The monotonic time a datagram with READY=1 arrived, or nil.
    func waitForReady(within seconds: Double) -> Double? {
        let deadline = MonotonicClock.seconds() + seconds
        var buffer = [UInt8](repeating: 0, count: 4096)
        while MonotonicClock.seconds() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) == 1 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            let arrived = MonotonicClock.seconds()
            if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").contains("READY=1") {
                return arrived
            }
        }
        return nil
    }
}

/// Threads that each make back-to-back calls on their own connection.
final class LoadGenerator: @unchecked Sendable {
    private let path: String
    private let clients: Int
    private let message: [UInt8]
    private var counts: [Int]
    private var failures: [String] = []
    private var lock = pthread_mutex_t()
    private var stopAt = 0.0

    init(path: String, clients: Int, message: [UInt8]) {
        self.path = path
        self.clients = clients
        self.message = message
        counts = Array(repeating: 0, count: clients)
        pthread_mutex_init(&lock, nil)
    }

    /// Calls made by all clients in `seconds`.
    func run(seconds: Double) throws(BenchError) -> Int {
        var connections: [VarlinkClient] = []
        for _ in 0..<clients {
            do {
                connections.append(try VarlinkClient(path: path))
            } catch {
                throw BenchError("\(error)")
            }
        }
        stopAt = MonotonicClock.seconds() + seconds
        var threads: [pthread_t] = []
        for index in 0..<clients {
            let work = Work(generator: self, index: index, connection: connections[index])
            var thread = pthread_t()
            let box = Unmanaged.passRetained(work).toOpaque()
            guard pthread_create(&thread, nil, { raw in
                let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                work.generator.loop(work.index, work.connection)
                return nil
            }, box) == 0 else { throw BenchError("cannot start a client thread") }
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        if let failure = failures.first { throw BenchError("a client failed: \(failure)") }
        return counts.reduce(0, +)
    }

    private final class Work {
        let generator: LoadGenerator
        let index: Int
        let connection: VarlinkClient
        init(generator: LoadGenerator, index: Int, connection: VarlinkClient) {
            self.generator = generator
            self.index = index
            self.connection = connection
        }
    }

    private func loop(_ index: Int, _ connection: VarlinkClient) {
        var made = 0
        do {
            while MonotonicClock.seconds() < stopAt {
                try connection.roundTrip(message)
                made += 1
            }
        } catch {
            pthread_mutex_lock(&lock)
            failures.append(error.description)
            pthread_mutex_unlock(&lock)
        }
        pthread_mutex_lock(&lock)
        counts[index] = made
        pthread_mutex_unlock(&lock)
    }
}
