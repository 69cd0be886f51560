@preconcurrency import Glibc

/// A program started with `posix_spawnp`, without a shell and without
/// Foundation's `Process`, and reaped with `waitpid` on its own pid.
///
/// The child starts with no blocked signals and every signal at its default
/// disposition, whatever this process blocks or ignores: the daemon ignores
/// SIGHUP and SIGPIPE, test runners block SIGTERM.
public final class ChildProcess {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        case null
        /// Duplicated onto the stream; the caller still owns it.
        case descriptor(Int32)
        /// Opened for reading (standard input) or appending, created when
        /// missing (output and error).
        case file(String)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        init(waitStatus raw: Int32) {
            let signal = raw & 0x7F
            self = signal == 0 ? .exited((raw >> 8) & 0xFF) : .signalled(signal)
        }

        /// The shell's number: the exit status, or 128 + the signal.
        public var code: Int32 {
            switch self {
            case let .exited(status): status
            case let .signalled(signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case let .exited(status): "exited with status \(status)"
            case let .signalled(signal): "killed by signal \(signal)"
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// `posix_spawn`'s error number.
        public let code: Int32
    }

    public let pid: pid_t
    public private(set) var termination: Termination?

    /// Starts `argv`; `argv[0]` is looked up in PATH unless it holds a
    /// slash. `environment` replaces the environment; nil passes this
    /// process's on. `ownGroup` starts it in a process group of its own,
    /// which `kill(-pid, …)` reaches whole.
    public init(
        _ argv: [String], environment: [String: String]? = nil,
        input: Stream = .null, output: Stream = .null, error: Stream = .null, ownGroup: Bool = false
    ) throws(Failure) {
        guard let program = argv.first else { throw Failure(description: "no program to start", code: EINVAL) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (number, stream) in [(Int32(0), input), (1, output), (2, error)] {
            let flags = number == 0 ? O_RDONLY : O_WRONLY | O_APPEND | O_CREAT
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, number, "/dev/null", flags, 0)
            case let .descriptor(descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, number)
            case let .file(path): posix_spawn_file_actions_addopen(&actions, number, path, flags, 0o644)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))

        let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let variables: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { variables?.forEach { free($0) } }
        var pid: pid_t = 0
        let result = variables.map { posix_spawnp(&pid, program, &actions, &attributes, arguments, $0) }
            ?? posix_spawnp(&pid, program, &actions, &attributes, arguments, environ)
        guard result == 0 else {
            throw Failure(description: "cannot start \(program): \(String(cString: strerror(result)))", code: result)
        }
        self.pid = pid
    }

    /// A child still running when its owner lets go is killed and reaped:
    /// none outlives the code that started it, none is left a zombie.
    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            wait()
        }
    }

    /// Whether the child has not exited (reaping it if it has).
    public var isRunning: Bool {
        guard termination == nil else { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid { termination = Termination(waitStatus: raw) }
        return termination == nil
    }

    /// Waits for the child to end.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let ended = Termination(waitStatus: raw)
        termination = ended
        return ended
    }
}
