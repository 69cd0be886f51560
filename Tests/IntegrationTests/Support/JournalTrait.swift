import Foundation
import SSVCPosix
import Testing

/// A real journald for the suite: the machine's when it runs one, else one
/// started for the test process, shared by every suite that asks for it
/// (suites run in parallel) and stopped when the last one is done. In CI
/// (`CI=true`) a journal that cannot be had fails the suite rather than
/// skipping it.
struct JournalTrait: SuiteTrait, TestTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try SharedJournal.shared.acquire()
        defer { SharedJournal.shared.release() }
        try await function()
    }
}

/// The reference-counted journald behind `JournalTrait`.
final class SharedJournal: @unchecked Sendable {
    static let shared = SharedJournal()
    static let socket = "/run/systemd/journal/socket"
    static let daemon = "/lib/systemd/systemd-journald"

    private let lock = NSLock()
    private var users = 0
    /// The journald this process started; nil when the machine had one.
    private var journald: ChildProcess?

    func acquire() throws {
        lock.lock()
        defer { lock.unlock() }
        users += 1
        guard users == 1 else { return }
        do {
            if !FileManager.default.fileExists(atPath: Self.socket) { try start() }
            try roundTrip()
        } catch {
            users -= 1
            stop()
            throw error
        }
    }

    private func start() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.daemon), "no journald at \(Self.daemon)")
        journald = try ChildProcess(Self.daemon, [])
        let started = eventually(within: 10, every: 0.02) { FileManager.default.fileExists(atPath: Self.socket) }
        try #require(started, "journald did not create \(Self.socket) within 10 s")
    }

    /// Sends one native entry with a field of its own, as ssvcd does, and
    /// reads it back: a journal that takes entries but keeps none fails
    /// here, with what it said, rather than later as "-- No entries --".
    private func roundTrip() throws {
        let probe = UUID().uuidString
        _ = try Executable.run("/usr/bin/logger", ["--journald"], input: Data("MESSAGE=ssvc test probe\nSSVC_PROBE=\(probe)\n".utf8))
        let kept = try eventually(within: 20, every: 0.1) {
            try Executable.run("/usr/bin/journalctl", ["-o", "cat", "--no-pager", "SSVC_PROBE=\(probe)"]).standardOutput.contains("ssvc test probe")
        }
        if !kept {
            let diagnosis = try Executable.shell("""
                ls -la /run/systemd/journal /run/log/journal/* /var/log/journal/* 2>&1; cat /etc/machine-id 2>&1
                df -h /run /var/log 2>&1; pgrep -af systemd-journald
                journalctl --no-pager -n 20 _COMM=systemd-journal 2>&1; dmesg 2>/dev/null | grep -i journal | tail -5
                """)
            try #require(Bool(false), "journald took no entry within 20 s:\n\(diagnosis.standardOutput)\(diagnosis.standardError)")
        }
    }

    /// Kills the journald this process started, if any, and removes its sockets.
    private func stop() {
        guard let journald else { return }
        kill(journald.pid, SIGKILL)
        journald.wait()
        self.journald = nil
        for leftover in ["socket", "stdout", "dev-log", "io.systemd.journal"] {
            try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + leftover)
        }
    }

    func release() {
        lock.lock()
        defer { lock.unlock() }
        users -= 1
        if users == 0 { stop() }
    }
}
