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
        guard users == 1, !FileManager.default.fileExists(atPath: Self.socket) else { return }
        do {
            try #require(FileManager.default.isExecutableFile(atPath: Self.daemon), "no journald at \(Self.daemon)")
            let started = try ChildProcess(Self.daemon, [])
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: Self.socket) && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            journald = started
            try #require(FileManager.default.fileExists(atPath: Self.socket), "journald did not start")
        } catch {
            users -= 1
            throw error
        }
    }

    func release() {
        lock.lock()
        defer { lock.unlock() }
        users -= 1
        guard users == 0, let journald else { return }
        kill(journald.pid, SIGKILL)
        journald.wait()
        self.journald = nil
        for leftover in ["socket", "stdout", "dev-log", "io.systemd.journal"] {
            try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + leftover)
        }
    }
}
