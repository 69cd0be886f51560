import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// A real journald for the suite: the machine's when it runs one, else one
/// started for the test process, shared by every suite that asks for it
/// (suites run in parallel) and stopped when the last one is done. In CI
/// (`CI=true`) a journal that cannot be had fails the suite rather than
/// skipping it.
struct JournalTrait: SuiteTrait, TestTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await SharedJournal.shared.acquire()
        try await withCleanup(function) { await SharedJournal.shared.release() }
    }
}

/// The reference-counted journald behind `JournalTrait`.
actor SharedJournal {
    static let shared = SharedJournal()
    static let socket = "/run/systemd/journal/socket"
    static let daemon = "/lib/systemd/systemd-journald"
    /// What journald leaves in /run/systemd/journal.
    static let sockets = ["socket", "stdout", "dev-log", "io.systemd.journal"]

    private var users = 0
    /// The start and first round trip, which every user awaits.
    private var ready: Task<Void, any Error>?
    /// The journald this process started; nil when the machine had one.
    private var journald: ChildProcess?
    /// Whether this process made /etc/machine-id, to remove it again.
    private var madeMachineID = false

    func acquire() async throws {
        users += 1
        let ready = self.ready ?? Task {
            if !Self.journaldListens() { try await start() }
            try await roundTrip()
        }
        self.ready = ready
        do {
            try await ready.value
        } catch {
            release()
            throw error
        }
    }

    /// Whether a journald takes datagrams on the socket: a socket file left
    /// by one that died refuses them, and is replaced by ours.
    private static func journaldListens() -> Bool {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return UnixSocket.connect(descriptor, to: Self.socket) == 0
    }

    private func start() async throws {
        // journald and journalctl find the journal's folder by the machine
        // id; without one (a bare container) they disagree. A machine that
        // runs systemd always has one: make it as systemd's package does,
        // for the run only.
        let machineID = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? ""
        if machineID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let made = try await Executable.run("/usr/bin/systemd-machine-id-setup", [])
            try #require(made.status == 0, "no /etc/machine-id, and systemd-machine-id-setup failed: \(made.standardError)")
            madeMachineID = true
        }
        for leftover in Self.sockets { try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + leftover) }
        try #require(FileManager.default.isExecutableFile(atPath: Self.daemon), "no journald at \(Self.daemon)")
        journald = try ChildProcess(Self.daemon, [])
        let started = await eventually(within: 10, every: 0.02) { FileManager.default.fileExists(atPath: Self.socket) }
        try #require(started, "journald did not create \(Self.socket) within 10 s")
    }

    /// Sends one native entry with a field of its own, as ssvcd does, and
    /// reads it back: a journal that takes entries but keeps none fails
    /// here, with what it said, rather than later as "-- No entries --".
    private func roundTrip() async throws {
        let probe = UUID().uuidString
        _ = try await Executable.run("/usr/bin/logger", ["--journald"], input: Data("MESSAGE=ssvc test probe\nSSVC_PROBE=\(probe)\n".utf8))
        let kept = try await eventually(within: 20, every: 0.1) {
            try await Executable.run("/usr/bin/journalctl", ["-o", "cat", "--no-pager", "SSVC_PROBE=\(probe)"]).standardOutput.contains("ssvc test probe")
        }
        if !kept {
            let diagnosis = try await Executable.shell("""
                ls -la /run/systemd/journal /run/log/journal/* /var/log/journal/* 2>&1; cat /etc/machine-id 2>&1
                df -h /run /var/log 2>&1; pgrep -af systemd-journald
                journalctl --no-pager -n 20 _COMM=systemd-journal 2>&1; dmesg 2>/dev/null | grep -i journal | tail -5
                """)
            try #require(Bool(false), "journald took no entry within 20 s:\n\(diagnosis.standardOutput)\(diagnosis.standardError)")
        }
    }

    /// Kills the journald this process started, if any, and removes its
    /// sockets, and the machine id it made.
    private func stop() {
        if let journald {
            kill(journald.pid, SIGKILL)  // reaped by ChildProcess when released
            self.journald = nil
            for leftover in Self.sockets { try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + leftover) }
        }
        if madeMachineID {
            try? FileManager.default.removeItem(atPath: "/etc/machine-id")
            madeMachineID = false
        }
    }

    func release() {
        users -= 1
        if users == 0 {
            ready = nil
            stop()
        }
    }
}

/// ssvcd's journal entries for `app` as JSON objects, read again until
/// there are at least `count` of them or 20 s pass (journald writes them
/// a moment after the daemon sent them).
func journalEntries(app: String, atLeast count: Int) async -> [[String: Any]] {
    var entries: [[String: Any]] = []
    _ = await eventually(within: 20, every: 0.2) {
        let result = try? await Executable.run("/usr/bin/journalctl", ["-o", "json", "--no-pager", "SYSLOG_IDENTIFIER=ssvcd", "SSVC_APP=\(app)"])
        entries = (result?.standardOutput ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return entries.count >= count
    }
    return entries
}
