import Foundation
import SSVCPosix

/// What a finished command left behind.
public struct CommandResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
    /// From the start to the end as the waiting thread saw it: the
    /// program's own time, whatever the test pool was doing meanwhile.
    public let seconds: Double

    public init(status: Int32, standardOutput: String, standardError: String, seconds: Double = 0) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.seconds = seconds
    }
}

/// A program run to its end for a test, awaited without holding a thread.
public enum Command {
    /// Runs `argv` (its first element looked up in PATH unless it holds a
    /// slash), feeding `input` on standard input; output goes through files
    /// so that neither stream can fill and block. `environment` replaces
    /// the environment; nil passes this process's on.
    public static func run(_ argv: [String], input: Data = Data(), environment: [String: String]? = nil) async throws -> CommandResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputURL = folder.appendingPathComponent("in")
        let outputURL = folder.appendingPathComponent("out")
        let errorURL = folder.appendingPathComponent("err")
        try input.write(to: inputURL)
        let started = ContinuousClock.now
        let child = try ChildProcess(
            argv, environment: environment, input: .file(inputURL.path), output: .file(outputURL.path), error: .file(errorURL.path)
        )
        let (termination, ended) = await child.ended()
        return CommandResult(
            status: termination.code,
            standardOutput: try text(outputURL.path),
            standardError: try text(errorURL.path),
            seconds: (ended - started) / .seconds(1)
        )
    }

    /// A file the program wrote, which must be UTF-8. Read with
    /// BoundedReader: FoundationEssentials' `String(contentsOf:)` leaks its
    /// buffer for an empty file (LeakSanitizer, `make sanitize`).
    private static func text(_ path: String) throws -> String {
        let bytes = try BoundedReader.read(path: path, limit: 256 << 20)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw NotUTF8(path: path) }
        return text
    }

    struct NotUTF8: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is not UTF-8" }
    }
}
