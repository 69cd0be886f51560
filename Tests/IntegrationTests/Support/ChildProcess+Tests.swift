import SSVCPosix
import SSVCTestSupport
import Testing

extension ChildProcess {
    /// A child for a test: the program and its arguments apart, standard
    /// streams to the files named (nil: /dev/null), a failure to start
    /// recorded as the test's.
    convenience init(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        input: String? = nil, output: String? = nil, error: String? = nil
    ) throws {
        do {
            try self.init(
                [path] + arguments, environment: environment,
                input: input.map(Stream.file) ?? .null, output: output.map(Stream.file) ?? .null, error: error.map(Stream.file) ?? .null
            )
        } catch {
            try #require(Bool(false), "\(error)")
            throw error
        }
    }

    /// Awaits the exit: the exit status, or 128 + the signal that ended it.
    func exitCode() async -> Int32 {
        await exited().code
    }
}
