@preconcurrency import Glibc

extension ChildProcess {
    /// What a program run to its end (or to its time limit) left.
    public struct Run: Sendable {
        /// Its standard output (and error, when asked), up to the limit.
        public var output: [UInt8]
        /// How it ended; after a time-out, how the kill ended it.
        public var termination: Termination
        /// It outlived its time and was killed.
        public var timedOut: Bool
    }

    /// Runs `argv` without a shell, standard input on /dev/null, and
    /// collects its standard output (with `errors`, standard error too, in
    /// one stream) up to `outputLimit` bytes, then stops reading (a further
    /// write gets SIGPIPE). Past `timeout` seconds it is
    /// killed with SIGKILL; with `ownGroup` it runs in a process group of
    /// its own and the whole group is killed, whatever it started.
    /// Blocks the calling thread: call it from a queue of its own.
    public static func run(
        _ argv: [String], environment: [String: String]? = nil, timeout: Double, outputLimit: Int,
        errors: Bool = false, ownGroup: Bool = false
    ) throws(Failure) -> Run {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(description: "cannot create a pipe", code: errno) }
        // Close-on-exec, so that no other program started meanwhile inherits them.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                argv, environment: environment, output: .descriptor(ends[1]), error: errors ? .descriptor(ends[1]) : .null,
                ownGroup: ownGroup
            )
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])

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
            var poller = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            switch count {
            case 0: break reading
            case ..<0 where errno == EINTR: continue
            case ..<0: break reading
            default: output.append(contentsOf: buffer[0..<min(count, outputLimit - output.count)])
            }
        }
        // Past the limit, the program's next write meets a closed pipe.
        close(ends[0])
        if timedOut { kill(ownGroup ? -child.pid : child.pid, SIGKILL) }
        return Run(output: output, termination: child.wait(), timedOut: timedOut)
    }
}
