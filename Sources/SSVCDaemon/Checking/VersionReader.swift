@preconcurrency import Glibc
import Dispatch
import SSVCCore

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
            let result = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        // The program starts with no blocked signals and default handlers,
        // whatever the daemon blocks or ignores (SIGHUP, SIGPIPE).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGQUIT] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, name, &actions, &attributes, &arguments, environ)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw VersionReader.Failure(description: "version-command \(name): \(String(cString: strerror(spawned)))")
        }

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
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if timedOut { throw failure(name, "did not finish within \(Int(timeout)) s") }
        let signal = status & 0x7F
        if signal != 0 { throw failure(name, "killed by signal \(signal)") }
        let code = (status >> 8) & 0xFF
        if code != 0 { throw failure(name, "exited with status \(code)") }
        return output
    }

    private static func failure(_ name: String, _ problem: String) -> VersionReader.Failure {
        VersionReader.Failure(description: "version-command \(name) \(problem)")
    }
}
