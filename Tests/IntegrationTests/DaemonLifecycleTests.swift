import Foundation
import SSVCTestSupport
import Testing

@Suite("ssvcd: start, signals, reload, notify", .processSlot)
struct DaemonLifecycleTests {
    @Test("a bad configuration stops ssvcd at start: exit 78 and one line naming file, key and problem", arguments: [
        ("[[app]]\nname = \"a\"\nversion = \"1\"\n", ": app.url: missing"),
        ("[daemon]\nbogus = 1\n", ": daemon.bogus: unknown key"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/\"\nversion = \"1\"\nversion-file = \"/v\"\n", ": app.version: set only one of"),
        ("[daemon\n", ":1:8: expected ']' to close the header, found a newline"),
    ])
    func badConfiguration(text: String, problem: String) async throws {
        try await checkBadConfiguration(text: text, problem: problem)
    }

    @Test("of several bad extra properties, the same one is named in every process, whatever its hash seed (found by attacking the loader)")
    func sameBadPropertyEveryTime() async throws {
        let text = "[[app]]\nname = \"a\"\nurl = \"https://x/\"\nversion = \"1\"\n[app.properties]\nzz = \"\"\naa = \"\"\nmm = \"\"\n"
        for _ in 0..<10 {
            try await checkBadConfiguration(text: text, problem: ": app.properties.aa: extra properties must be named x-…")
        }
    }

    func checkBadConfiguration(text: String, problem: String) async throws {
        let folder = try TemporaryFolder()
        let path = try folder.file("ssvcd.toml", text)
        for target in ["stderr", "journal"] {
            let result = try await Executable.run("ssvcd", ["--config", path, "--log-target", target])
            #expect(result.status == 78)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(result.standardError)")
            #expect(lines.first?.contains(path + problem) == true, "\(result.standardError)")
        }
    }

    @Test("under systemd, whose journal is standard error, a start error is one journal entry and no stderr line", JournalTrait())
    func startErrorOnceUnderSystemd() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.file("ssvcd.toml", "[daemon]\nbogus = 1\n")
        let errors = folder.url.appendingPathComponent("stderr").path
        let ssvcd = try Executable.path("ssvcd")
        let script = """
            exec 2>'\(errors)'
            JOURNAL_STREAM=$(stat -c %d:%i '\(errors)') '\(ssvcd)' --config '\(path)' --log-target journal
            """
        let result = try await Executable.shell(script)
        #expect(result.status == 78)
        #expect(try String(contentsOfFile: errors, encoding: .utf8) == "")
        // Started by hand (no JOURNAL_STREAM), the same error is echoed once.
        let byHand = try await Executable.run("ssvcd", ["--config", path, "--log-target", "journal"])
        #expect(byHand.status == 78)
        #expect(byHand.standardError.split(separator: "\n").count == 1, "\(byHand.standardError)")
    }

    @Test("a second ssvcd on the same state folder exits 1 naming the first's pid; the first keeps its results")
    func oneDaemonPerStateFolder() async throws {
        let first = try await controlDaemon()
        let before = try String(contentsOfFile: first.stateDirectory + "/state.json", encoding: .utf8)
        let other = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: other.url.path + "/apps.d", withIntermediateDirectories: true)
        let config = try other.file("ssvcd.toml", """
            [daemon]
            state-dir = "\(first.stateDirectory)"
            socket = "\(other.url.path)/second.sock"
            apps-dir = "\(other.url.path)/apps.d"
            first-check-window-seconds = 0
            [[app]]
            name = "alpha"
            url = "file:///nonexistent"
            version = "9.0"
            """)
        // Under timeout: without the lock the second would run on (124).
        let second = try await Executable.shell("exec timeout 10 '\(try Executable.path("ssvcd"))' --config '\(config)' --log-target stderr")
        #expect(second.status == 1, "\(second.standardError)")
        #expect(second.standardError.contains("another ssvcd (pid \(first.process.pid)) is running on the state folder \(first.stateDirectory)"), "\(second.standardError)")
        #expect(try String(contentsOfFile: first.stateDirectory + "/state.json", encoding: .utf8) == before, "the second wrote nothing")
        #expect(!FileManager.default.fileExists(atPath: other.url.path + "/second.sock"))
        try await expectHealthy(first)
        #expect(await first.stop() == 0)
        // The lock goes with the process: the folder is free again.
        let third = try DaemonProcess(daemon: "", apps: appTable("alpha", url: "file://" + first.folder.url.path + "/r.json"), folder: first.folder)
        #expect(await third.wait { FileManager.default.fileExists(atPath: third.socketPath) }, "\(third.log)")
        #expect(try await Executable.run("ssvcctl", ["--socket", third.socketPath, "status", "alpha"]).status == 10, "1.0 against the document's 1.1")
        #expect(await third.stop() == 0)
    }

    @Test("one event-loop thread, whatever the number of cores")
    func oneEventLoopThread() async throws {
        let daemon = try await controlDaemon()
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.pid)/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/\(daemon.process.pid)/task/\($0)/comm", encoding: .utf8) }
        #expect(names.filter { $0.hasPrefix("NIO-") }.count == 1, "threads: \(names)")
        await #expect(daemon.stop() == 0)
    }

    @Test("a descriptor passed as the socket that is none: exit 1, naming the descriptor systemd passed, not the configured path")
    func passedDescriptorNotASocket() async throws {
        let folder = try TemporaryFolder()
        let config = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"socket\"\n\n" + appTable("n", url: "http://127.0.0.1:9/v"))
        let ssvcd = try Executable.path("ssvcd")
        // LISTEN_PID must be ssvcd's own: the shell sets it, then becomes
        // ssvcd. Were ssvcd to run on regardless, SIGTERM ends it after 20 s.
        let result = try await Executable.shell(
            "(sleep 20; kill -TERM $$ 2>/dev/null) >/dev/null 2>&1 & export LISTEN_PID=$$ LISTEN_FDS=1; exec 3</etc/hostname; exec \(ssvcd) --config \(config) --log-target stderr"
        )
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("cannot listen on the socket systemd passed (descriptor 3, LISTEN_FDS=1)"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.path + "/socket"))
    }

    @Test("STOPPING=1 reaches a manager whose queue is full when SIGTERM comes, once it reads again")
    func stoppingThroughFullQueue() async throws {
        let folder = try TemporaryFolder()
        let listener = try NotifyListener(folder: folder)
        let daemon = try DaemonProcess(
            apps: appTable("n", url: "file://" + (try folder.file("r.json", goodBody))),
            environment: ["NOTIFY_SOCKET": listener.path], folder: folder
        )
        let started = await listener.receive(for: 10) { $0.contains { $0.contains("READY=1") } }
        try #require(started.contains { $0.contains("READY=1") }, "\(started)")
        _ = try listener.fill()
        kill(daemon.process.pid, SIGTERM)
        // The first try meets the full queue; ssvcd must not exit on it.
        await pause(0.3)
        let stopping = await listener.receive(for: 10) { $0.contains("STOPPING=1") }
        #expect(stopping.contains("STOPPING=1"), "\(stopping.filter { $0 != "X=1" })")
        #expect(await daemon.stop() == 0)
    }

    @Test("sd_notify: READY=1 with STATUS, WATCHDOG=1 pings, STOPPING=1 on SIGTERM")
    func notify() async throws {
        let folder = try TemporaryFolder()
        let listener = try NotifyListener(folder: folder)
        let daemon = try DaemonProcess(
            apps: appTable("n", url: "file://" + (try folder.file("r.json", goodBody))),
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"], folder: folder
        )
        let started = await listener.receive(for: 10) { $0.filter { $0.contains("WATCHDOG=1") }.count >= 2 }
        let ready = try #require(started.first { $0.contains("READY=1") }, "\(started)")
        #expect(ready.contains("STATUS=1 apps"))
        #expect(started.contains { $0.hasPrefix("STATUS=1 apps: 1 update-available") }, "\(started)")
        #expect(started.filter { $0 == "WATCHDOG=1" }.count >= 2)
        kill(daemon.process.pid, SIGTERM)
        let stopping = await listener.receive(for: 10) { $0.contains("STOPPING=1") }
        #expect(stopping.contains("STOPPING=1"))
        #expect(await daemon.stop() == 0)
    }

    @Test("no watchdog pings when WATCHDOG_PID names another process")
    func watchdogForAnother() async throws {
        let folder = try TemporaryFolder()
        let listener = try NotifyListener(folder: folder)
        let daemon = try DaemonProcess(
            apps: "", environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"], folder: folder
        )
        // READY=1 first, however long a loaded machine takes to start a
        // debug daemon (1.5 s from the spawn was once all it had), then 1.5 s
        // more: seven pings at 200 ms had the daemon taken them for its own.
        let started = await listener.receive(for: 10) { $0.contains { $0.contains("READY=1") } }
        #expect(started.contains { $0.contains("READY=1") }, "\(started)")
        let after = await listener.receive(for: 1.5) { _ in false }
        #expect(!(started + after).contains("WATCHDOG=1"))
        #expect(await daemon.stop() == 0)
    }

    @Test("SIGHUP reloads: a good app file adds an app; a bad one keeps the running configuration")
    func reload() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        let daemon = try DaemonProcess(apps: appTable("first", url: document), folder: folder)
        await #expect(daemon.wait { daemon.app("first")?["lastSuccess"] != nil })

        _ = try folder.file("apps.d/second.toml", "url = \"\(document)\"\nversion = \"1.1\"\n")
        kill(daemon.process.pid, SIGHUP)
        await #expect(daemon.wait { daemon.app("second")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(daemon.log.contains("configuration reloaded: 2 apps"))

        let broken = try folder.file("apps.d/third.toml", "url = \"\(document)\"\n")
        kill(daemon.process.pid, SIGHUP)
        await #expect(daemon.wait { daemon.log.contains("keeping the running configuration") })
        let line = try #require(daemon.log.split(separator: "\n").first { $0.contains("keeping the running configuration") })
        #expect(line.contains("\(broken): version: missing"))
        #expect(line.contains("MESSAGE_ID=913ae7582dd54f7fa83a5a53dc110921"))
        #expect(daemon.process.isRunning)

        try FileManager.default.removeItem(atPath: broken)
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("apps.d/second.toml"))
        kill(daemon.process.pid, SIGHUP)
        await #expect(daemon.wait { daemon.log.contains("configuration reloaded: 1 apps") })
        await #expect(daemon.stop() == 0)
        #expect(daemon.app("second") == nil)
        #expect(daemon.app("first") != nil)
    }

    @Test("the running version is read before each check: an upgraded product is seen")
    func upgrade() async throws {
        let folder = try TemporaryFolder()
        let document = "file://" + (try folder.file("r.json", goodBody))
        let versionFile = try folder.file("installed", "1.0\n")
        let apps = appTable("product", url: document).replacingOccurrences(of: "version = \"1.0\"", with: "version-file = \"\(versionFile)\"")
        let first = try DaemonProcess(apps: apps, folder: folder)
        await #expect(first.wait { first.app("product")?["lastSuccess"] != nil })
        #expect((first.app("product")?["decision"] as? [String: Any])?["updateAvailable"] as? Bool == true)
        await #expect(first.stop() == 0)

        try "1.1\n".write(toFile: versionFile, atomically: true, encoding: .utf8)
        try ageState(in: first.stateDirectory, by: 3 * 86_400)
        let second = try DaemonProcess(apps: apps, folder: folder)
        await #expect(second.wait { second.app("product")?["currentVersion"] as? String == "1.1" })
        await #expect(second.wait { second.lines(for: "product").first?.contains("up to date (1.1)") == true }, "\(second.log)")
        await #expect(second.stop() == 0)
    }
}
