import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Testing

@Suite("running version sources")
struct VersionReaderTests {
    @Test("a version file's first line, trimmed; an empty one is an error")
    func file() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-version-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try " 2.4.1 \nsecond line\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try await VersionReader.read(.file(path)) == "2.4.1")
        try "\n".write(toFile: path, atomically: true, encoding: .utf8)
        await #expect(throws: VersionReader.Failure(description: "version-file \(path) is empty")) {
            try await VersionReader.read(.file(path))
        }
    }

    @Test("a command's first line of output; failures say why")
    func command() async throws {
        #expect(try await VersionReader.read(.command(["printf", "3.1\\nnoise"])) == "3.1")
        await #expect(throws: VersionReader.Failure(description: "version-command false exited with status 1")) {
            try await VersionReader.read(.command(["false"]))
        }
        await #expect(throws: VersionReader.Failure(description: "version-command true printed nothing")) {
            try await VersionReader.read(.command(["true"]))
        }
        await #expect(throws: VersionReader.Failure(description: "version-command /nonexistent/tool: No such file or directory")) {
            try await VersionReader.read(.command(["/nonexistent/tool"]))
        }
    }

    @Test("a command that outlives five seconds is killed, not waited for")
    func timeout() async throws {
        await #expect(throws: VersionReader.Failure(description: "version-command sleep did not finish within 5 s")) {
            try await VersionReader.read(.command(["sleep", "120"]))
        }
        // Timed on the thread that runs it (off the pool, as the daemon runs
        // it off its executor): the kill comes at 5 s, and a command left to
        // finish (120 s) or a kill that waited a grace period would cross 10 s.
        let (outcome, seconds) = await offPool {
            let started = Date()
            let outcome = Result { () throws(VersionReader.Failure) in _ = try CommandRunner.run(["sleep", "120"], timeout: 5) }
            return (outcome, Date().timeIntervalSince(started))
        }
        #expect(throws: VersionReader.Failure(description: "version-command sleep did not finish within 5 s")) { try outcome.get() }
        #expect(seconds < 10)
    }

    @Test("a command spawned after its service began to stop is killed as it starts, not left to its 5 s limit")
    func spawnedAfterStop() async throws {
        let commands = RunningCommands()
        commands.stop()
        // A check that spawns its command just after the stop (busy machine, issue 49).
        await #expect(throws: VersionReader.Failure(description: "version-command sleep killed by signal 9")) {
            try await VersionReader.read(.command(["sleep", "120"]), commands: commands)
        }
        // Another service's commands are not its own.
        #expect(try await VersionReader.read(.command(["printf", "3.1"]), commands: RunningCommands()) == "3.1")
    }
}
