import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// The package's built executables, run as a user would run them.
enum Executable {
    /// An absolute path as it is; otherwise one of ours from
    /// `SSVC_BIN_DIR` (the Makefile sets it), else the folder of the test
    /// runner itself, where SwiftPM puts the executables beside it.
    static func path(_ name: String) throws -> String {
        if name.hasPrefix("/") { return name }
        var folder = ProcessInfo.processInfo.environment["SSVC_BIN_DIR"] ?? ""
        if folder.isEmpty {
            let runner = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            folder = URL(fileURLWithPath: runner).deletingLastPathComponent().path
        }
        let path = "\(folder)/\(name)"
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is not built: run 'make test'")
        return path
    }

    /// Runs `name` with `arguments`, feeding `input` on standard input,
    /// and awaits its end (`Command.run`).
    static func run(
        _ name: String, _ arguments: [String], input: Data = Data(), environment: [String: String]? = nil
    ) async throws -> CommandResult {
        let program = try path(name)
        do {
            return try await Command.run([program] + arguments, input: input, environment: environment)
        } catch let failure as ChildProcess.Failure {
            try #require(Bool(false), "\(failure)")
            throw failure
        }
    }
}

extension Executable {
    /// Runs a bash script.
    static func shell(_ script: String) async throws -> CommandResult {
        try await run("/bin/bash", ["-c", script])
    }
}

/// A scratch folder removed when the test ends.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `contents` to a file in the folder and returns its path.
    /// Through a descriptor closed on exec, then renamed into place: a
    /// child another test starts meanwhile must not inherit the write end
    /// of a script the daemon will run (exec would fail, "Text file busy").
    func file(_ name: String, _ contents: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileSystem.replace(file.path, with: Array(contents), mode: 0o644, durable: false)
        return file.path
    }

    func file(_ name: String, _ text: String) throws -> String {
        try file(name, Data(text.utf8))
    }
}
