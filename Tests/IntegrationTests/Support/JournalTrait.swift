import Foundation
import Testing

/// A real journald for the suite: the machine's when it runs one, else one
/// started for the suite and stopped after it. In CI (`CI=true`) a journal
/// that cannot be had fails the suite rather than skipping it.
struct JournalTrait: SuiteTrait, TestScoping {
    static let socket = "/run/systemd/journal/socket"
    static let daemon = "/lib/systemd/systemd-journald"

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        if FileManager.default.fileExists(atPath: Self.socket) {
            try await function()
            return
        }
        try #require(FileManager.default.isExecutableFile(atPath: Self.daemon), "no journald at \(Self.daemon)")
        let journald = try Spawned(Self.daemon, [])
        defer {
            kill(journald.pid, SIGKILL)
            journald.wait()
            for leftover in ["socket", "stdout", "dev-log", "io.systemd.journal"] {
                try? FileManager.default.removeItem(atPath: "/run/systemd/journal/" + leftover)
            }
        }
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: Self.socket) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(FileManager.default.fileExists(atPath: Self.socket), "journald did not start")
        try await function()
    }
}
