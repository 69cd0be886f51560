import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// What an attacker or a careless operator can hand ssvcd: none of it may
/// crash it, hang it, or keep SIGTERM from stopping it.
@Suite("never crash, never wedge: stalled supervisors, hostile files, numbers at their limits", .processSlot)
struct NeverWedgeTests {
    @Test("a notify socket read once, then filled to its limit and never read: 20 Check and 20 Reload calls are answered and SIGTERM stops the daemon")
    func stalledSupervisor() async throws {
        let folder = try TemporaryFolder()
        let listener = try NotifyListener(folder: folder)
        let daemon = try DaemonProcess(
            apps: appTable("n", url: "file://" + (try folder.file("r.json", goodBody))),
            environment: ["NOTIFY_SOCKET": listener.path], folder: folder
        )
        let ready = await listener.receive(for: 10) { $0.contains { $0.contains("READY=1") } }
        #expect(ready.contains { $0.contains("READY=1") })
        // From here on nobody reads, and the queue is filled to its limit
        // (net.unix.max_dgram_qlen: 10 by the kernel, 512 where systemd
        // sets it): a send that does not wait now gets EAGAIN, and so would
        // every notification of the daemon's.
        let limit = Int((try? String(contentsOfFile: "/proc/sys/net/unix/max_dgram_qlen", encoding: .utf8))?.filter(\.isNumber) ?? "") ?? 0
        let queued = try listener.fill()
        #expect(limit > 0 && queued > 0 && queued <= limit + 1, "queued \(queued), net.unix.max_dgram_qlen \(limit)")
        #expect(listener.sendWithoutWaiting() == EAGAIN, "the supervisor's queue is not full")
        for round in 0..<20 {
            let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "n", "--timeout", "60"])
            #expect(check.status == 10, "check \(round): \(check.standardError)")
            let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--timeout", "60"])
            #expect(reload.status == 0, "reload \(round): \(reload.standardError)")
            if check.status != 10 || reload.status != 0 { break }
        }
        #expect(listener.sendWithoutWaiting() == EAGAIN, "still full: nobody read while the daemon answered")
        #expect(await daemon.stop() == 0)
        // A stop that waited for the supervisor would never end (killed at
        // 10 s); beside Tests/busy and a build a quick one took 5.7 s.
        #expect(daemon.stopSeconds < 9, "\(daemon.stopSeconds) s")
    }

    @Test("standard error a pipe nobody reads, filled to its limit: 20 Check and 20 Reload calls are answered, the lines come out whole and in order once read, and SIGTERM stops the daemon")
    func stalledStandardError() async throws {
        let folder = try TemporaryFolder()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let daemon: DaemonProcess
        do {
            defer { close(ends[1]) }
            daemon = try DaemonProcess(
                folder: folder, config: nil, daemon: "", apps: appTable("n", url: "file://" + (try folder.file("r.json", goodBody))),
                arguments: [], environment: [:], standardError: ends[1]
            )
        }
        defer { daemon.abandon() }
        // The pipe filled by a writer of its own that does not wait (a
        // description of its own: O_NONBLOCK on the daemon's would change
        // what is tested); from here on every write of the daemon's would wait.
        let filler = open("/proc/self/fd/\(ends[0])", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(filler >= 0)
        let ready = await daemon.wait(20) { FileManager.default.fileExists(atPath: daemon.socketPath) }
        #expect(ready)
        // PIPE_BUF bytes a write: each whole or not at all.
        let block = [UInt8](repeating: UInt8(ascii: "#"), count: 4_095) + [0x0A]
        var filled = 0
        while true {
            let written = block.withUnsafeBytes { write(filler, $0.baseAddress, $0.count) }
            if written <= 0 { break }
            filled += written
        }
        close(filler)
        #expect(filled >= 16_384, "filled \(filled) bytes")
        for round in 0..<20 {
            let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "n", "--timeout", "60"])
            #expect(check.status == 10, "check \(round): \(check.standardError)")
            // A changed configuration: each reload logs what it read.
            _ = try folder.file("ssvcd.toml", (try String(contentsOfFile: daemon.configPath, encoding: .utf8)) + "\n")
            let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--timeout", "60"])
            #expect(reload.status == 0, "reload \(round): \(reload.standardError)")
            if check.status != 10 || reload.status != 0 { break }
        }
        // Nobody read meanwhile; now the pipe is read to its end, which
        // comes when the daemon, stopped (or killed after 30 s), closes it.
        async let read = offPool { [reader = ends[0]] in
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(reader, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return String(decoding: all, as: UTF8.self) }
                all += buffer[..<count]
            }
        }
        #expect(await daemon.stop() == 0)
        let text = await read
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        // Each line whole: a priority, then the message.
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines.filter { !$0.hasPrefix("<") }.prefix(3))")
        let checks = lines.filter { $0.contains("SSVC_APP=n") && $0.contains("update-available") }.count
        #expect(checks >= 20, "\(checks) check results of 21 in \(lines.count) lines")
        #expect(lines.last?.contains("stopped") == true, "\(lines.suffix(2))")
    }

    @Test("started with standard input, output and error closed: each is /dev/null, and no line goes into a file ssvcd opened after")
    func closedStandardStreams() async throws {
        let folder = try TemporaryFolder()
        let daemon = try DaemonProcess(
            folder: folder, config: nil, daemon: "", apps: appTable("n", url: "file://" + (try folder.file("r.json", goodBody))),
            arguments: [], environment: [:], wrapper: ["sh", "-c", "exec \"$@\" <&- >&- 2>&-", "sh"]
        )
        defer { daemon.abandon() }
        let ready = await daemon.wait(20) { FileManager.default.fileExists(atPath: daemon.socketPath) }
        try #require(ready)
        for stream in 0...2 {
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.process.pid)/fd/\(stream)")
            #expect(target == "/dev/null", "descriptor \(stream) is \(target ?? "closed")")
        }
        // A reload and a check log lines; none may land in the state lock,
        // the first file a start opens.
        let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--timeout", "60"])
        #expect(reload.status == 0)
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "n", "--timeout", "60"])
        #expect(check.status == 10)
        let pid = daemon.process.pid
        #expect(await daemon.stop() == 0)
        // The lock holds the pid, as written, and nothing else.
        let lock = try String(contentsOfFile: daemon.stateDirectory + "/state.lock", encoding: .utf8)
        #expect(lock == "\(pid)\n", "\(lock.prefix(300))")
    }

    /// Files that crashed or overflowed TOMLKit, the TOML library ssvc
    /// used before its own parser, by name (the texts are too big to print
    /// as test arguments).
    static let crashingFiles: [String: String] = [
        "open bracket": "[\n",
        "array header": "a = 1\n[[\nx=1\n",
        "100,000 dotted parts": String(repeating: "a.", count: 100_000) + "b = 1\n",
        "100,000 nested arrays": "x = " + String(repeating: "[", count: 100_000) + "\n",
        "200,000 brackets": String(repeating: "[", count: 200_000),
        "NUL": "url = \"file:///x\"\nversion = \"1\"\n\u{0}[daemon]\n",
    ]

    @Test("file contents that crashed TOMLKit: exit 78 at start naming file, line and column", arguments: [
        ("open bracket", ":1:2: expected a key, found a newline"),
        ("array header", ":2:3: expected a key, found a newline"),
        ("100,000 dotted parts", ":1:201: tables and arrays nest more than 100 deep"),
        ("100,000 nested arrays", ":1:105: tables and arrays nest more than 100 deep"),
        ("NUL", ":3:1: control character U+0000 is not allowed"),
    ])
    func crashingFileAtStart(name: String, problem: String) async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        let app = try folder.file("apps.d/x.toml", try #require(Self.crashingFiles[name]))
        let main = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"c.sock\"\napps-dir = \"apps.d\"\n")
        let result = try await Executable.run("ssvcd", ["--config", main, "--log-target", "stderr"])
        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains(app + problem), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("c.sock").path))
    }

    @Test("a two-byte file dropped into apps.d and reloaded: the daemon lives, keeps its apps and answers InvalidConfiguration")
    func crashingFileAtReload() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        let daemon = try DaemonProcess(apps: appTable("kept", url: "file://" + (try folder.file("r.json", goodBody))), folder: folder)
        #expect(await daemon.wait { daemon.app("kept")?["lastSuccess"] != nil })
        for (name, problem) in [
            ("open bracket", ":1:2: expected a key, found a newline"), ("200,000 brackets", ":1:3: expected a key, found '['"),
            ("100,000 dotted parts", ":1:201: tables and arrays nest more than 100 deep"),
        ] {
            let bad = try folder.file("apps.d/x.toml", try #require(Self.crashingFiles[name]))
            let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload", "--timeout", "60"])
            #expect(reload.status == 1)
            #expect(reload.standardError.contains(bad + problem), "\(reload.standardError)")
            #expect(daemon.process.isRunning)
            #expect(try await daemon.statusByApp().keys.sorted() == ["kept"])
        }
        #expect(await daemon.stop() == 0)
    }

    @Test("numbers past their ranges in the configuration: exit 78 naming the key, never a trap", arguments: [
        ("timeout-seconds = 1e308", "daemon.timeout-seconds: must be from 0.001 to 3600"),
        ("timeout-seconds = inf", "daemon.timeout-seconds: must be from 0.001 to 3600, found inf"),
        ("timeout-seconds = nan", "daemon.timeout-seconds: must be from 0.001 to 3600, found nan"),
        ("timeout-seconds = 9e18", "daemon.timeout-seconds: must be from 0.001 to 3600"),
        ("timeout-seconds = 9223372036854775807", "daemon.timeout-seconds: must be from 0.001 to 3600"),
        ("min-interval-seconds = 9223372036854775807", "daemon.min-interval-seconds: must be from 0 to 2678400"),
        ("max-response-bytes = 9223372036854775807", "daemon.max-response-bytes: must be from 1 to 67108864"),
    ])
    func configuredNumbers(setting: String, problem: String) async throws {
        let folder = try TemporaryFolder()
        let main = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"c.sock\"\n\(setting)\n")
        let result = try await Executable.run("ssvcd", ["--config", main, "--log-target", "stderr"])
        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains(problem), "\(result.standardError)")
    }

    @Test("a URL whose port is past 65535 is refused at start, naming the app's key")
    func portOutOfRange() async throws {
        let folder = try TemporaryFolder()
        let main = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"c.sock\"\n" + appTable("p", url: "http://127.0.0.1:99999/x"))
        let result = try await Executable.run("ssvcd", ["--config", main, "--log-target", "stderr"])
        #expect(result.status == 78)
        #expect(result.standardError.contains("app.url: 'http://127.0.0.1:99999/x': port 99999 is not from 1 to 65535"), "\(result.standardError)")
    }

    @Test("WATCHDOG_USEC=1 does not spin a CPU: pings come at most every 100 ms")
    func tinyWatchdog() async throws {
        let folder = try TemporaryFolder()
        let listener = try NotifyListener(folder: folder)
        let daemon = try DaemonProcess(apps: "", environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1"], folder: folder)
        func cpuTicks() throws -> Int {
            let fields = try #require(try String(contentsOfFile: "/proc/\(daemon.process.pid)/stat", encoding: .utf8).split(separator: ")").last)
                .split(separator: " ")
            return try #require(Int(fields[11])) + #require(Int(fields[12]))
        }
        let ready = await listener.receive(for: 10) { $0.contains { $0.contains("READY=1") } }
        try #require(ready.contains { $0.contains("READY=1") })
        let started = try cpuTicks()
        let messages = await listener.receive(for: 1.5, fresh: true) { _ in false }
        let pings = messages.filter { $0 == "WATCHDOG=1" }.count
        #expect(pings >= 5 && pings <= 20, "\(pings) pings in 1.5 s")
        // After start, 15 pings cost next to nothing: a spinning timer
        // would take 150 ticks (USER_HZ 100) in these 1.5 s.
        let spent = try cpuTicks() - started
        #expect(spent < 10, "\(spent) clock ticks of CPU in 1.5 s after start")
        #expect(await daemon.stop() == 0)
    }

    @Test("a failure count at its largest in the state file, then a failed check: the count saturates, the daemon lives")
    func saturatedFailures() async throws {
        let folder = try TemporaryFolder()
        let apps = appTable("s", url: "file://" + folder.url.appendingPathComponent("absent.json").path)
        let first = try DaemonProcess(apps: apps, folder: folder)
        #expect(await first.wait { first.app("s")?["lastCheck"] != nil })
        #expect(await first.stop() == 0)
        let path = first.stateDirectory + "/state.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: #""consecutiveFailures":1"#, with: #""consecutiveFailures":9223372036854775807"#)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let second = try DaemonProcess(apps: apps, folder: folder)
        #expect(await second.wait { FileManager.default.fileExists(atPath: second.socketPath) })
        let check = try await Executable.run("ssvcctl", ["--socket", second.socketPath, "check", "s", "--timeout", "60"])
        #expect(second.process.isRunning, "\(second.log)")
        #expect(second.app("s")?["consecutiveFailures"] as? Int == Int.max, "\(check.standardOutput)")
        #expect(await second.stop() == 0)
    }

    @Test("a version command that closes its output and runs on is killed at 5 s; Check answers, SIGTERM stops")
    func commandThatClosesItsOutput() async throws {
        let folder = try TemporaryFolder()
        let apps = """
            [[app]]
            name = "cmd"
            url = "file://\(try folder.file("r.json", goodBody))"
            schedule = "never"
            version-command = ["sh", "-c", "echo 1.0; exec >&-; exec sleep 60"]
            """
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "cmd", "--json", "--timeout", "20"])
        // Answered at the 5 s limit, not after the command's 60 s: a bound far
        // from both, since beside a loaded machine the answer once took 9.5 s (issue 49).
        #expect(check.seconds < 30)
        #expect(check.standardOutput.contains("version-command sh did not finish within 5 s"), "\(check.standardOutput)")
        // SIGTERM while the command runs again: its group is killed, the stop does not wait out its limit.
        let second = try ChildProcess(try Executable.path("ssvcctl"), ["--socket", daemon.socketPath, "check", "cmd", "--timeout", "20"], output: "/dev/null", error: "/dev/null")
        await pause(0.5)
        #expect(await daemon.stop() == 0)
        // Waiting out the command would take the 4.5 s left of its limit.
        #expect(daemon.stopSeconds < 4.5, "stopped in \(daemon.stopSeconds) s, not after the command's 5 s")
        _ = await second.exitCode()
    }

    @Test("FIFOs where files belong: the daemon names them and never waits on them")
    func fifos() async throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)

        // The state file: moved aside at start, and the daemon runs.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("state"), withIntermediateDirectories: true)
        #expect(mkfifo(folder.url.appendingPathComponent("state/state.json").path, 0o600) == 0)
        let apps = """
            [[app]]
            name = "vf"
            url = "file://\(try folder.file("r.json", goodBody))"
            schedule = "never"
            version-file = "\(fifo)"

            [[app]]
            name = "doc"
            url = "file://\(fifo)"
            schedule = "never"
            version = "1.0"
            """
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        #expect(daemon.log.contains("state.json is a FIFO, not a regular file"), "\(daemon.log)")
        let check = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "--json", "--timeout", "60"])
        #expect(check.standardOutput.contains("version-file: \(fifo) is a FIFO, not a regular file"), "\(check.standardOutput)")
        #expect(check.standardOutput.contains("\(fifo) is a FIFO, not a regular file"))
        #expect(try await daemon.statusByApp().count == 2)
        #expect(await daemon.stop() == 0)

        // The trust roots and an app file: refused at start.
        let ca = try folder.file("ca.toml", "[daemon]\nstate-dir = \"s2\"\nsocket = \"c2.sock\"\nca-file = \"\(fifo)\"\n")
        let caResult = try await Executable.run("ssvcd", ["--config", ca, "--log-target", "stderr"])
        #expect(caResult.status == 78)
        #expect(caResult.standardError.contains("daemon.ca-file: \(fifo) is a FIFO, not a regular file"), "\(caResult.standardError)")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        #expect(mkfifo(folder.url.appendingPathComponent("apps.d/pipe.toml").path, 0o600) == 0)
        let appsDir = try folder.file("d.toml", "[daemon]\nstate-dir = \"s3\"\nsocket = \"c3.sock\"\napps-dir = \"apps.d\"\n")
        let appsResult = try await Executable.run("ssvcd", ["--config", appsDir, "--log-target", "stderr"])
        #expect(appsResult.status == 78)
        #expect(appsResult.standardError.contains("pipe.toml is a FIFO, not a regular file"), "\(appsResult.standardError)")
    }

    @Test("a state file from a newer ssvc is kept as it is; the daemon says so once and runs in memory")
    func newerStateFile() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("state"), withIntermediateDirectories: true)
        let newer = #"{"schema": 7, "apps": {"n": {"future": true}}}"#
        let path = try folder.file("state/state.json", newer)
        let daemon = try DaemonProcess(apps: appTable("n", url: "file://" + (try folder.file("r.json", goodBody))), folder: folder)
        #expect(await daemon.wait { (try? await daemon.statusByApp()["n"]?["lastSuccess"]) != nil }, "\(daemon.log)")
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "--timeout", "60"])
        #expect(await daemon.stop() == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == newer)
        #expect(daemon.log.components(separatedBy: "was written by a newer ssvc (schema 7; this one reads 1)").count == 2, "\(daemon.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("state").path).sorted() == ["state.json", "state.lock"], "nothing written but the lock")
    }

    @Test("a full disk is said once, the state stays in memory, and it is written when space returns")
    func fullDisk() async throws {
        let folder = try TemporaryFolder()
        let disk = try await SmallDisk(in: folder)
        defer { disk.unmount() }
        let small = disk.path
        let daemon = try disk.daemon(in: folder, metrics: true)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: small + "/state/state.json") })
        try await disk.fill()
        for _ in 0..<3 {
            _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "--timeout", "60"])
        }
        #expect(daemon.log.components(separatedBy: "cannot save the state").count == 2, "\(daemon.log)")
        #expect(daemon.log.components(separatedBy: "cannot write the metrics file").count == 2, "\(daemon.log)")
        try FileManager.default.removeItem(atPath: small + "/fill")
        // A Check writes at once; the retry timer's 15, 30, 60 s … are
        // pinned in virtual time (VirtualTimeTests.failedWriteRetried).
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "--timeout", "60"])
        #expect(await daemon.wait(5) { daemon.log.contains("state written again") }, "\(daemon.log)")
        let inMemory = try #require(try await daemon.statusByApp()["d"]?["lastCheck"] as? String)
        #expect(await daemon.wait(5) { daemon.log.contains("metrics file \(small)/ssvc.prom written again") }, "\(daemon.log)")
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: small + "/state/state.json"))) as? [String: Any]
        let written = try #require(((state?["apps"] as? [String: Any])?["d"] as? [String: Any])?["lastCheck"] as? String)
        #expect(written == inMemory, "the state written is the one kept in memory")
        #expect(await daemon.stop() == 0)
    }

    @Test("a 40 MB dpkg database of one package on 500,000 architectures, and a 900 KB Turkcell packageName: GetStatus answers while they are read, no log line passes 16 KB")
    func outsideInputOffTheExecutor() async throws {
        let folder = try TemporaryFolder()
        let admin = folder.url.appendingPathComponent("dpkg").path
        try FileManager.default.createDirectory(atPath: admin, withIntermediateDirectories: true)
        var status = Data()
        for index in 0..<500_000 {
            status.append(contentsOf: "Package: multi\nStatus: install ok installed\nArchitecture: a\(index)\nVersion: 1.0-\(index)\n\n".utf8)
        }
        try status.write(to: URL(fileURLWithPath: admin + "/status"))
        let document = "file://" + (try folder.file("r.json", goodBody))
        let turkcell = "file://" + (try folder.file("t.json", #"{"packageName":""# + String(repeating: "p", count: 900_000) + #""}"#))
        let apps = """
            [[app]]
            name = "dpkg"
            url = "\(document)"
            version-package = "multi"
            schedule = "never"

            \(appTable("turkcell", url: turkcell, extra: "format = \"turkcell\"\napp-id = \"t\""))
            \(appTable("other", url: document))
            """
        let daemon = try DaemonProcess(apps: apps, environment: ["DPKG_ADMINDIR": admin], folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) && daemon.app("other")?["lastSuccess"] != nil }, "\(daemon.log)")
        let check = try ChildProcess(try Executable.path("ssvcctl"), ["--socket", daemon.socketPath, "check", "dpkg", "--timeout", "120"], output: "/dev/null", error: "/dev/null")
        let client = try RawConnection(daemon.socketPath)
        var slowest = 0.0
        var asked = 0
        let started = ContinuousClock.now
        while check.isRunning && asked < 2_000 {
            let (reply, seconds) = await client.ask("io.ssvc.Daemon.GetStatus", #"{"app":"other"}"#)
            #expect(reply.isReply)
            slowest = max(slowest, seconds)
            asked += 1
            await pause(0.02)
        }
        _ = await check.exitCode()
        let took = (ContinuousClock.now - started) / .seconds(1)
        #expect(asked > 3, "the parse took long enough to be measured: \(asked) calls")
        // A parse on the daemon's executor would hold one GetStatus for most
        // of it. Within 1 s on a quiet machine; beside Tests/busy and a build
        // the whole machine crawls (a reply took 7.8 s, the parse longer), so
        // the bound is a quarter of the check's time when that is longer.
        #expect(slowest < max(1, took / 4), "GetStatus waited \(slowest) s while dpkg's database was parsed (\(took) s)")
        let error = try #require(try await daemon.statusByApp()["dpkg"]?["lastError"] as? String)
        #expect(error.hasPrefix("version-package: "), "\(error)")
        #expect(error.utf8.count <= 4_096)
        #expect(await daemon.wait { daemon.app("turkcell")?["lastError"] != nil })
        let longest = daemon.log.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest < 16_384, "a log line of \(longest) bytes")
        #expect(await daemon.stop() == 0)
    }

    @Test("a restart with 300 pending phased offers settles them to the times stored: nothing rewritten, the socket answers at once")
    func restartWithPendingOffers() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":\#(now)}"#))
        let apps = (0..<300).map { appTable("app\($0)", url: document, extra: "phased-rollout-seconds = 604800") }.joined(separator: "\n")
        var daemon = try DaemonProcess(daemon: "rollout-position = 0.987654321", apps: apps, folder: folder)
        #expect(await daemon.wait(60) { (daemon.state?["apps"] as? [String: Any])?.count == 300 && daemon.app("app299")?["pending"] != nil }, "\(daemon.log)")
        #expect(await daemon.stop() == 0)
        let path = daemon.stateDirectory + "/state.json"
        // Inode and modification time: a rename of a new file may get the old inode number back.
        func written() throws -> String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return "\(attributes[.systemFileNumber] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        let before = try written()
        daemon = try DaemonProcess(daemon: "rollout-position = 0.987654321", apps: apps, folder: folder)
        #expect(await daemon.wait(10) { FileManager.default.fileExists(atPath: daemon.socketPath) }, "\(daemon.log)")
        #expect((try await daemon.statusByApp().values.filter { $0["pendingVersion"] as? String == "2.0" }.count) == 300)
        await pause(1.5)
        let after = try written()
        #expect(before == after, "the state file was rewritten at start: offers settled to other times")
        #expect(await daemon.stop() == 0)
    }

    @Test("tag-patterns that backtrack for ever elsewhere, over a server's tags: matched in linear time, GetStatus and another app's Check answer, SIGTERM stops in 5 s")
    func hostileTagPatterns() async throws {
        let folder = try TemporaryFolder()
        func releases(_ tags: [String]) throws -> String {
            "file://" + (try folder.file(UUID().uuidString + ".json", "[" + tags.map { #"{"tag_name":"\#($0)"}"# }.joined(separator: ",") + "]"))
        }
        // 2^60 and 2^48 paths for a backtracking matcher: it would never finish.
        let nested = try releases(["billing-v" + String(repeating: "1", count: 60) + "x"])
        let exponential = try releases([String(repeating: "a", count: 48) + "!"])
        let long = String(repeating: "1", count: 127) + "." + String(repeating: "1", count: 127) + "x"
        let plain = try releases(Array(repeating: long, count: 3_800))
        #expect(try FileManager.default.attributesOfItem(atPath: String(plain.dropFirst("file://".count)))[.size] as? Int ?? 0 < 1 << 20, "under max-response-bytes")
        let apps = [
            appTable("nested", url: nested, extra: "format = \"github\"\ntag-pattern = '^billing-v((\\d+\\.?)+)$'"),
            appTable("exponential", url: exponential, extra: "format = \"github\"\ntag-pattern = '^(a+)+$'"),
            appTable("plain", url: plain, extra: "format = \"github\"\ntag-pattern = '(\\d+)\\.(\\d+)$'"),
            appTable("other", url: "file://" + (try folder.file("r.json", goodBody))),
        ].joined(separator: "\n")
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { daemon.app("other")?["lastSuccess"] != nil }, "\(daemon.log)")
        // The two tags that never end for a backtracking matcher take a
        // linear one milliseconds.
        let exponentialTook = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "nested", "exponential", "--timeout", "60"]).seconds
        #expect(exponentialTook < 5, "the two exponential patterns took \(exponentialTook) s: not linear")
        let hostile = try ChildProcess(try Executable.path("ssvcctl"), ["--socket", daemon.socketPath, "check", "plain", "--timeout", "120"], output: "/dev/null", error: "/dev/null")
        let client = try RawConnection(daemon.socketPath)
        var slowest = 0.0
        for _ in 0..<20 {
            let (reply, seconds) = await client.ask("io.ssvc.Daemon.GetStatus", #"{"app":"other"}"#)
            #expect(reply.isReply)
            slowest = max(slowest, seconds)
        }
        let other = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "other", "--timeout", "60"])
        #expect(other.status == 10)
        // The match takes seconds quiet and tens of seconds beside Tests/busy:
        // an executor it held would show as that long, so the bounds leave
        // room for a loaded machine's scheduling (issue 49), not for the match.
        #expect(other.seconds < 5, "another app's Check took \(other.seconds) s")
        #expect(slowest < 3, "GetStatus took \(slowest) s")
        _ = await hostile.exitCode()
        let status = try await daemon.statusByApp()
        for name in ["nested", "exponential"] {
            #expect((status[name]?["lastError"] as? String)?.contains("whose tag matches") == true, "\(name): \(status[name] ?? [:])")
        }
        // A million characters through the debug build take seconds when
        // quiet and passed timeout-seconds (30 s) beside Tests/busy (issue
        // 49): either ending is the input contained, the daemon answering.
        let plainError = status["plain"]?["lastError"] as? String ?? ""
        #expect(plainError.contains("whose tag matches") || plainError.contains("took longer than timeout-seconds"), "plain: \(status["plain"] ?? [:])")
        // The plain pattern again, while a stop comes.
        _ = try ChildProcess(try Executable.path("ssvcctl"), ["--socket", daemon.socketPath, "check", "plain", "--timeout", "60"], output: "/dev/null", error: "/dev/null")
        await pause(0.1)
        #expect(await daemon.stop() == 0)
        // 2.4 s beside Tests/busy once (issue 49); waiting out the match would be far longer.
        #expect(daemon.stopSeconds < 5, "SIGTERM took \(daemon.stopSeconds) s")
    }
}
