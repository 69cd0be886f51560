@preconcurrency import Glibc
import Dispatch
import SSVCCore
import SSVCPosix

/// Reads an app's running version from its source, fresh before each check:
/// the product may have been upgraded since the last one.
public enum VersionReader {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// How long a `version-command` may run.
    public static let commandTimeout: Double = 5

    public static func read(_ source: VersionSource) async throws(Failure) -> String {
        switch source {
        case let .fixed(key):
            return key
        case let .file(path):
            let bytes: [UInt8]
            do {
                bytes = try BoundedReader.read(path: path, limit: 64 * 1024)
            } catch {
                throw Failure(description: "version-file: \(error)")
            }
            guard let line = firstLine(bytes) else { throw Failure(description: "version-file \(path) is empty") }
            return line
        case let .command(argv):
            // A serial queue of its own for each command, so that several
            // apps' commands run side by side without a global queue (which
            // would start libdispatch's once-a-second worker-pool monitor).
            let result = await withCheckedContinuation { continuation in
                DispatchQueue(label: "io.ssvc.version-command").async {
                    continuation.resume(returning: Result { () throws(Failure) in try CommandRunner.run(argv, timeout: commandTimeout) })
                }
            }
            let output = try result.get()
            guard let line = firstLine(output) else {
                throw Failure(description: "version-command \(argv[0]) printed nothing")
            }
            return line
        }
    }

    /// The first line, white space trimmed; nil when empty.
    static func firstLine(_ bytes: [UInt8]) -> String? {
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        let text = String(decoding: line, as: UTF8.self).trimming(" \t\r")
        return text.isEmpty ? nil : text
    }
}

/// Runs a program without a shell and collects its standard output.
enum CommandRunner {
    static let outputLimit = 64 * 1024

    /// Standard input and error are /dev/null; the program is killed when
    /// it outlives `timeout` seconds. Fails unless it exits with status 0.
    static func run(_ argv: [String], timeout: Double) throws(VersionReader.Failure) -> [UInt8] {
        let name = argv[0]
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw failure(name, "cannot create a pipe") }
        // Close-on-exec, so that no other program started meanwhile inherits them.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let child: ChildProcess
        do {
            child = try ChildProcess(argv, output: .descriptor(pipeEnds[1]))
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw VersionReader.Failure(description: "version-command \(name): \(String(cString: strerror(error.code)))")
        }
        close(pipeEnds[1])

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.seconds() + timeout
        var timedOut = false
        reading: while output.count < outputLimit {
            let remaining = deadline - MonotonicClock.seconds()
            if remaining <= 0 {
                timedOut = true
                break
            }
            var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            switch count {
            case 0: break reading
            case ..<0 where errno == EINTR: continue
            case ..<0: break reading
            default: output.append(contentsOf: buffer[0..<count])
            }
        }
        close(pipeEnds[0])
        if timedOut { kill(child.pid, SIGKILL) }
        let termination = child.wait()
        if timedOut { throw failure(name, "did not finish within \(Int(timeout)) s") }
        guard termination == .exited(0) else { throw failure(name, termination.description) }
        return output
    }

    private static func failure(_ name: String, _ problem: String) -> VersionReader.Failure {
        VersionReader.Failure(description: "version-command \(name) \(problem)")
    }
}
