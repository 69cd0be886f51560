@preconcurrency import Glibc
import ArgumentParser
import FoundationEssentials
import SSVCControl
import SSVCCore
import SSVCPosix

/// The daemon under everything at once for a while, with figures each
/// minute (a benchmark, not a test): README, "Benchmark figures".
struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run ssvcd under mixed servers, reloads, watchers, status and check calls; print figures each minute."
    )

    @Option(help: "The ssvcd to run (a release build).") var ssvcd = ".build/release/ssvcd"
    @Option(help: "How long, in minutes.") var minutes = 10
    @Option(help: "Apps, spread over healthy, slow, failing and signed servers.") var apps = 1_000
    @Option(help: "The minisign fixtures (doc.json, prehashed.minisig, minisign.pub).") var fixtures = "Tests/Fixtures/minisign"

    func run() throws {
        do {
            try SoakRun(ssvcd: ssvcd, minutes: minutes, apps: apps, fixtures: fixtures).run()
        } catch {
            throw ValidationError("ssvc-bench soak: \(error.description)")
        }
    }
}

/// One soak: the server, the daemon, the load threads and the figures.
final class SoakRun: @unchecked Sendable {
    let ssvcd: String, minutes: Int, apps: Int, fixtures: String
    private var lock = pthread_mutex_t()
    private var latencies: [Double] = []
    private var checks = 0, failed = 0, reloads = 0, refused = 0
    private var errors: [String] = []
    private var running = true

    /// What each app's server does, by `index % kinds.count`: three fifths healthy.
    static let kinds = ["ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok",
                        "slow", "fail", "reset", "garbage", "big", "loop", "signed", "signed"]

    init(ssvcd: String, minutes: Int, apps: Int, fixtures: String) {
        (self.ssvcd, self.minutes, self.apps, self.fixtures) = (ssvcd, minutes, apps, fixtures)
        pthread_mutex_init(&lock, nil)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return body()
    }

    private func note(_ error: String) { locked { if errors.count < 20 { errors.append(error) } } }

    func run() throws(BenchError) {
        // Each minute's line as it is printed, into a file or a pipe too.
        setvbuf(stdout, nil, _IOLBF, 0)
        guard let document = ProcFile.read(fixtures + "/doc.json"), let signature = ProcFile.read(fixtures + "/prehashed.minisig"),
              let key = ProcFile.read(fixtures + "/minisign.pub")?.split(separator: "\n").last.map(String.init)
        else { throw BenchError("cannot read the minisign fixtures in \(fixtures)") }
        let server = try SoakServer.start(document: #"{"SSVCLatestVersionKey":"1.1"}"#, signed: Array(document.utf8), signature: Array(signature.utf8))
        defer { server.shutdown() }
        var template = Array("/tmp/ssvc-soak.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot make a temporary folder") }
        let folder = String(cString: made)
        defer { _ = try? ChildProcess(["rm", "-rf", folder]).wait() }
        var text = """
            [daemon]
            state-dir = "state"
            socket = "socket"
            apps-dir = "apps.d"
            metrics-file = "ssvc.prom"
            timeout-seconds = 5
            first-check-window-seconds = 60

            """
        for index in 0..<apps {
            let kind = Self.kinds[index % Self.kinds.count]
            text += "\n[[app]]\nname = \"app\(index)\"\nurl = \"\(SoakServer.url(server, kind, index))\"\nschedule = \"hourly\"\nversion = \"1.0\"\n"
            if kind == "signed" { text += "public-keys = [\"\(key)\"]\n" }
        }
        mkdir(folder + "/apps.d", 0o755)
        try write(folder + "/ssvcd.toml", text)
        let socket = folder + "/socket"
        let log = folder + "/ssvcd.log"
        let daemon: ChildProcess
        do {
            daemon = try ChildProcess([ssvcd, "--config", folder + "/ssvcd.toml", "--log-target", "stderr"], error: .file(log))
        } catch {
            throw BenchError(error.description)
        }
        defer { if daemon.isRunning { kill(daemon.pid, SIGKILL); daemon.wait() } }
        let pid = daemon.pid
        let started = MonotonicClock.seconds()
        while MonotonicClock.seconds() - started < 10, (try? VarlinkClient(path: socket)) == nil { usleep(20_000) }
        usleep(2_000_000)
        let baseline = (descriptors: ProcHeld.descriptors(pid), threads: ProcHeld.threads(pid))
        print("soak [\(Machine.summary); \(apps) apps (\(apps * 12 / 20) healthy, the rest slow, 500, reset, HTML, 2 MiB, redirect loop, signed), "
            + "8 GetStatus clients, 2 Check clients, a reload a second (half broken), Watch clients coming and going, \(minutes) min, \(ssvcd)]")
        print("start: \(baseline.descriptors.count) descriptors, \(baseline.threads.count) threads (\(ProcHeld.counted(baseline.threads)))")
        print("min  RSS MiB  fds  threads  checks  failed  reloads ok/refused  GetStatus p50/p99/max ms")

        var threads: [pthread_t] = []
        for index in 0..<8 { threads.append(try spawn { self.statusClient(socket, seed: index) }) }
        for index in 0..<2 { threads.append(try spawn { self.checkClient(socket, seed: index) }) }
        threads.append(try spawn { self.reloader(socket, folder: folder) })
        threads.append(try spawn { self.comingAndGoing(socket) })
        threads.append(try spawn { self.counter(socket) })

        var firstMinuteRSS = 0
        var worstP99 = 0.0
        for minute in 1...minutes {
            usleep(60_000_000)
            guard daemon.isRunning else { throw BenchError("ssvcd exited during the soak: \(ProcFile.read(log)?.suffix(2_000) ?? "")") }
            let sample = locked { () -> (lat: [Double], checks: Int, failed: Int, reloads: Int, refused: Int) in
                defer { (latencies, checks, failed, reloads, refused) = ([], 0, 0, 0, 0) }
                return (latencies.sorted(), checks, failed, reloads, refused)
            }
            let rss = ProcFile.statusNumber(pid, "VmRSS") ?? 0
            if minute == 1 { firstMinuteRSS = rss }
            let p = { (fraction: Double) in sample.lat.isEmpty ? 0 : sample.lat[min(sample.lat.count - 1, Int(Double(sample.lat.count) * fraction))] }
            worstP99 = max(worstP99, p(0.99))
            print("\(pad(minute, 3))  \(pad(String(mebibytes: rss), 7))  \(pad(ProcHeld.descriptors(pid).count, 3))  \(pad(ProcFile.statusNumber(pid, "Threads") ?? 0, 7))  "
                + "\(pad(sample.checks, 6))  \(pad(sample.failed, 6))  \(pad("\(sample.reloads)/\(sample.refused)", 18))  "
                + "\(String(format2: p(0.5)))/\(String(format2: p(0.99)))/\(String(format2: sample.lat.last ?? 0)) (\(sample.lat.count) calls)")
        }
        // No check lost: every app has been checked, and none is overdue.
        var lost: [String] = []
        do {
            let client = try VarlinkClient(path: socket)
            let now = Date()
            for app in try client.apps(.getStatus) {
                let name = (try? app.member("name")?.string()) ?? "?"
                let lastCheck = (try? app.member("lastCheck")?.string()).flatMap(RFC3339.parse)
                let next = (try? app.member("nextCheck")?.string()).flatMap(RFC3339.parse)
                if lastCheck == nil || (next.map { $0 < now.addingTimeInterval(-90) } ?? true) { lost.append(name) }
            }
        } catch {
            note("final GetStatus: \(error)")
        }
        locked { running = false }
        for thread in threads { pthread_join(thread, nil) }
        let endRSS = ProcFile.statusNumber(pid, "VmRSS") ?? 0
        // The server goes with the load and ends its connections: the
        // daemon's checks go on but are refused at once, so a socket still
        // held below is one the daemon kept, not a check in flight.
        server.shutdown()
        // Back to the start? Asked each second for up to two minutes: an
        // idle pooled HTTP connection lives 60 s after its last request.
        let loadEnded = MonotonicClock.seconds()
        var after = (descriptors: ProcHeld.descriptors(pid), threads: ProcHeld.threads(pid))
        while after.descriptors.count > baseline.descriptors.count || after.threads.count > baseline.threads.count,
              MonotonicClock.seconds() - loadEnded < 120 {
            usleep(1_000_000)
            after = (ProcHeld.descriptors(pid), ProcHeld.threads(pid))
        }
        let settled = Int(MonotonicClock.seconds() - loadEnded)
        let stopStart = MonotonicClock.seconds()
        kill(pid, SIGTERM)
        let termination = daemon.wait()
        let stopSeconds = MonotonicClock.seconds() - stopStart
        print("RSS after the first minute: \(String(mebibytes: firstMinuteRSS)) → \(String(mebibytes: endRSS)) MiB at the end "
            + "(\(endRSS - firstMinuteRSS >= 0 ? "+" : "")\(endRSS - firstMinuteRSS) KiB; target under +1024 KiB)")
        let extra = ProcHeld.extra(after.descriptors, over: baseline.descriptors) + ProcHeld.extra(after.threads, over: baseline.threads)
        print("after the load: \(after.descriptors.count) descriptors (start \(baseline.descriptors.count)), \(after.threads.count) threads (start \(baseline.threads.count))"
            + (extra.isEmpty ? ", \(settled) s after it" : ", still \(settled) s after it; more than at the start: \(extra.joined(separator: ", "))"))
        print("GetStatus p99, worst minute: \(String(format2: worstP99)) ms (target under 10 ms)")
        print("checks lost (never checked, or overdue by 90 s at the end): \(lost.count)\(lost.isEmpty ? "" : ": " + lost.prefix(10).joined(separator: ", "))")
        print("SIGTERM to exit: \(String(format2: stopSeconds * 1_000)) ms, \(termination) (target under 2 s)")
        let problems = locked { errors }
        if !problems.isEmpty { print("client errors: " + problems.joined(separator: "; ")) }
    }

    // MARK: Load

    private func statusClient(_ socket: String, seed: Int) {
        var random = UInt64(seed + 1)
        guard let client = try? VarlinkClient(path: socket) else { return note("GetStatus client cannot connect") }
        while locked({ running }) {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let message = VarlinkClient.message(.getStatus, parameters: ["app": "app\(Int(random >> 33) % apps)"])
            let start = MonotonicClock.seconds()
            do { try client.roundTrip(message) } catch { return note("GetStatus: \(error)") }
            let elapsed = (MonotonicClock.seconds() - start) * 1_000
            locked { latencies.append(elapsed) }
        }
    }

    private func checkClient(_ socket: String, seed: Int) {
        var random = UInt64(seed + 101)
        guard let client = try? VarlinkClient(path: socket, replyTimeout: 60) else { return note("Check client cannot connect") }
        while locked({ running }) {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            do { _ = try client.call(.check, parameters: ["app": "app\(Int(random >> 33) % apps)"]) } catch { return note("Check: \(error)") }
            usleep(200_000)
        }
    }

    /// A reload each second; every other one finds a broken app file.
    private func reloader(_ socket: String, folder: String) {
        var broken = false
        guard let client = try? VarlinkClient(path: socket, replyTimeout: 30) else { return note("Reload client cannot connect") }
        while locked({ running }) {
            broken.toggle()
            if broken {
                try? write(folder + "/apps.d/broken.toml", "url = \"https://x.example/v\"\nversion = \"1\"\nschedule = \"fortnightly\"\n")
            } else {
                unlink(folder + "/apps.d/broken.toml")
            }
            do {
                _ = try client.call(.reload)
                locked { reloads += 1 }
            } catch let VarlinkClient.Failure.remote(name, _) where name == "io.ssvc.Daemon.InvalidConfiguration" {
                locked { refused += 1 }
            } catch {
                return note("Reload: \(error)")
            }
            usleep(1_000_000)
        }
    }

    /// Watch clients that connect, read for a while, and leave.
    private func comingAndGoing(_ socket: String) {
        while locked({ running }) {
            if let client = try? VarlinkClient(path: socket) {
                try? client.send(VarlinkClient.message(.watch, more: true))
                usleep(UInt32.random(in: 100_000...1_500_000))
            }
            usleep(200_000)
        }
    }

    /// One watcher that stays, counting checks and failed checks.
    private func counter(_ socket: String) {
        guard let client = try? VarlinkClient(path: socket, replyTimeout: 5) else { return note("counting watcher cannot connect") }
        do { try client.send(VarlinkClient.message(.watch, more: true)) } catch { return note("Watch: \(error)") }
        while locked({ running }) {
            guard let reply = try? client.receive() else {
                usleep(10_000)
                continue
            }
            let text = String(decoding: reply, as: UTF8.self)
            guard text.contains("\"kind\":\"check\"") else { continue }
            let failing = !text.contains("\"consecutiveFailures\":0")
            locked {
                checks += 1
                if failing { failed += 1 }
            }
        }
    }

    // MARK: Helpers

    private func spawn(_ body: @escaping () -> Void) throws(BenchError) -> pthread_t {
        final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        guard pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box) == 0 else { throw BenchError("cannot start a thread") }
        return thread
    }

    private func write(_ path: String, _ text: String) throws(BenchError) {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    private func pad(_ value: some CustomStringConvertible, _ width: Int) -> String {
        let text = value.description
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
