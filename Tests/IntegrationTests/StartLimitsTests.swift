import Foundation
import SSVCTestSupport
import Testing

/// The limits and signal dispositions ssvcd may be started under, set with
/// prlimit, a cgroup and a parent that ignores SIGCHLD.
@Suite("ssvcd under the limits it is started with", .processSlot)
struct StartLimitsTests {
    /// A configuration with one app whose version comes from a command.
    func configuration(_ folder: TemporaryFolder) throws -> String {
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        return try folder.file("ssvcd.toml", """
            [daemon]
            state-dir = "state"
            socket = "control.sock"
            apps-dir = "apps.d"
            first-check-window-seconds = 0
            min-interval-seconds = 0
            [[app]]
            name = "cmd"
            url = "file://\(try folder.file("r.json", goodBody))"
            version-command = ["/bin/echo", "1.0"]
            """)
    }

    @Test("below 64 open files ssvcd refuses to start naming the limit, exit 1, at once", arguments: [8, 16, 32, 63])
    func fewDescriptors(limit: Int) async throws {
        let folder = try TemporaryFolder()
        // Before reading the configuration or opening anything: the
        // configuration is a FIFO no one writes, where an open would wait
        // until the KILL (not a time bound: a loaded machine once took
        // seconds to start a process; issue 49).
        let config = folder.url.appendingPathComponent("ssvcd.toml").path
        #expect(mkfifo(config, 0o644) == 0)
        let result = try await Executable.shell("exec timeout -s KILL 10 prlimit --nofile=\(limit):\(limit) '\(try Executable.path("ssvcd"))' --config '\(config)' --log-target stderr")
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError == "ssvcd: needs at least 64 open files, but RLIMIT_NOFILE (systemd: LimitNOFILE=) allows \(limit)\n")
    }

    @Test("at 64 open files it starts, checks and answers, and stops on SIGTERM")
    func justEnoughDescriptors() async throws {
        let folder = try TemporaryFolder()
        let config = try configuration(folder)
        let daemon = try DaemonProcess(
            folder: folder, config: try String(contentsOfFile: config, encoding: .utf8), daemon: "", apps: "", arguments: [], environment: [:],
            wrapper: ["prlimit", "--nofile=64:64", "--"]
        )
        #expect(await daemon.wait { daemon.app("cmd")?["lastSuccess"] != nil }, "\(daemon.log)")
        try await expectHealthyStatus(daemon)
        #expect(await daemon.stop() == 0)
    }

    @Test("a task limit below 16 (RLIMIT_NPROC for a user) is refused naming it, not a hang or a trap", arguments: [1, 5])
    func fewTasks(limit: Int) async throws {
        try #require(getuid() == 0, "switches to a user of its own")
        // A uid that runs nothing else: RLIMIT_NPROC counts every process of
        // the user, and `nobody` may run anything on a busy machine.
        let user = try unusedUserID()
        let folder = try TemporaryFolder()
        let config = try configuration(folder)
        // Written through a descriptor closed on exec: a copy another test's child inherited would be "busy".
        let copy = try folder.file("ssvcd", try Data(contentsOf: URL(fileURLWithPath: try Executable.path("ssvcd"))))
        #expect(chmod(copy, 0o755) == 0)
        #expect(chown(folder.url.path, user, user) == 0)
        let result = try await Executable.shell(
            "exec timeout -s KILL 10 prlimit --nproc=\(limit):\(limit) setpriv --reuid=\(user) --regid=\(user) --clear-groups '\(copy)' --config '\(config)' --log-target stderr"
        )
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError == "ssvcd: needs at least 16 more tasks (threads and processes), but RLIMIT_NPROC (systemd: LimitNPROC=) is \(limit)\n")
    }

    @Test("a cgroup whose pids.max leaves fewer than 16 tasks (systemd's TasksMax=) is refused naming it")
    func cgroupTasks() async throws {
        let hierarchy = ["/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"].first {
            FileManager.default.isWritableFile(atPath: $0) && (FileManager.default.fileExists(atPath: $0 + "/cgroup.procs"))
                && ($0.hasSuffix("/pids") || ((try? String(contentsOfFile: $0 + "/cgroup.subtree_control", encoding: .utf8))?.contains("pids") ?? false))
        }
        let root = try #require(hierarchy, "no writable pids cgroup hierarchy")
        let group = root + "/ssvc-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: false)
        defer { rmdir(group) }
        try "8\n".write(toFile: group + "/pids.max", atomically: false, encoding: .utf8)
        let folder = try TemporaryFolder()
        let config = try configuration(folder)
        let result = try await Executable.shell(
            "echo $$ > '\(group)/cgroup.procs' && exec timeout -s KILL 10 '\(try Executable.path("ssvcd"))' --config '\(config)' --log-target stderr"
        )
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("ssvcd: needs at least 16 more tasks (threads and processes), but the cgroup's pids.max (systemd: TasksMax=) is 8, "),
                "\(result.standardError)")
    }

    @Test("started by a parent that ignores SIGCHLD: --check-config is quick and version commands work")
    func ignoredChildSignal() async throws {
        let folder = try TemporaryFolder()
        let config = try configuration(folder)
        let ignoring = ["/usr/bin/python3", "-c", "import signal, os, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"]
        let checked = try await Executable.run(ignoring[0], Array(ignoring.dropFirst()) + [try Executable.path("ssvcd"), "--config", config, "--check-config"])
        #expect(checked.status == 0, "\(checked.standardError)")
        // Quick: not waiting for a child the kernel reaped itself. A bound
        // far from a hang's and from a loaded machine's start (issue 49).
        #expect(checked.seconds < 30, "\(checked.seconds) s")
        let daemon = try DaemonProcess(
            folder: folder, config: try String(contentsOfFile: config, encoding: .utf8), daemon: "", apps: "", arguments: [], environment: [:],
            wrapper: ignoring
        )
        #expect(await daemon.wait { daemon.app("cmd")?["lastSuccess"] != nil }, "\(daemon.log)")
        #expect(daemon.app("cmd")?["currentVersion"] as? String == "1.0")
        #expect(await daemon.stop() == 0)
    }

    /// GetStatus answers with the one app.
    func expectHealthyStatus(_ daemon: DaemonProcess) async throws {
        let status = try await daemon.statusByApp()
        #expect(status.keys.sorted() == ["cmd"])
    }
}
