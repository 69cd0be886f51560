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
        /// Its process id (its group's too, when run in its own group).
        public var pid: pid_t
    }

    /// Runs `argv` without a shell, standard input on /dev/null (or fed
    /// `input`, when given), and collects its standard output (with
    /// `errors`, standard error too, in one stream) up to `outputLimit`
    /// bytes, then stops reading (a further write gets SIGPIPE).
    ///
    /// The limit is on the program's life, not on its output: one that
    /// closes its output and runs on is still killed with SIGKILL `timeout`
    /// seconds after it started. With `ownGroup` it runs in a process group
    /// of its own and the whole group is killed, whatever it started.
    /// Blocks the calling thread for at most about `timeout` seconds: call
    /// it from a queue of its own. `started` is told the pid once the
    /// program runs (to kill it from elsewhere, as the daemon's stop does).
    public static func run(
        _ argv: [String], environment: [String: String]? = nil, input: [UInt8]? = nil, timeout: Double, outputLimit: Int,
        errors: Bool = false, ownGroup: Bool = false, started: ((pid_t) -> Void)? = nil
    ) throws(Failure) -> Run {
        var ends: [Int32] = [0, 0]
        var inputEnds: [Int32] = [-1, -1]
        guard makePipe(&ends) else { throw Failure(description: "cannot create a pipe", code: errno) }
        if input != nil {
            // A socket pair, not a pipe: `send` with MSG_NOSIGNAL meets a
            // child that exited without reading with EPIPE, not SIGPIPE.
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &inputEnds) == 0 else {
                let code = errno
                ends.forEach { close($0) }
                throw Failure(description: "cannot create a pipe", code: code)
            }
        }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                argv, environment: environment, input: input == nil ? .null : .descriptor(inputEnds[0]),
                output: .descriptor(ends[1]), error: errors ? .descriptor(ends[1]) : .null, ownGroup: ownGroup
            )
        } catch {
            (ends + inputEnds).filter { $0 >= 0 }.forEach { close($0) }
            throw error
        }
        started?(child.pid)
        close(ends[1])
        if inputEnds[0] >= 0 { close(inputEnds[0]) }
        var writer = inputEnds[1]
        defer { if writer >= 0 { close(writer) } }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.seconds() + timeout
        var timedOut = false
        var reader = ends[0]
        var written = 0
        let pending = input ?? []
        if writer >= 0 && pending.isEmpty {
            close(writer)
            writer = -1
        }
        // Feeds the input and reads the output until both are done.
        while reader >= 0 || writer >= 0 {
            let remaining = deadline - MonotonicClock.seconds()
            if remaining <= 0 {
                timedOut = true
                break
            }
            var pollers = [
                pollfd(fd: reader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: writer, events: Int16(POLLOUT), revents: 0),
            ]
            let ready = poll(&pollers, 2, Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            if writer >= 0 && pollers[1].revents != 0 {
                let count = pending.withUnsafeBytes {
                    send(writer, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if count > 0 { written += count }
                if (count < 0 && errno != EAGAIN && errno != EINTR) || written == pending.count {
                    close(writer)
                    writer = -1
                }
            }
            if reader >= 0 && pollers[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count > 0 { output.append(contentsOf: buffer[0..<min(count, outputLimit - output.count)]) }
                // At the end, or past the limit: the program's next write meets a closed pipe.
                if count <= 0 || output.count >= outputLimit {
                    close(reader)
                    reader = -1
                }
            }
        }
        if reader >= 0 { close(reader) }
        // The output is done; the program may still run. Waited for without
        // blocking, up to the same deadline.
        var pause: UInt32 = 1_000
        while !timedOut && child.isRunning {
            if MonotonicClock.seconds() >= deadline {
                timedOut = true
                break
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        if timedOut { kill(ownGroup ? -child.pid : child.pid, SIGKILL) }
        return Run(output: output, termination: child.wait(), timedOut: timedOut, pid: child.pid)
    }

    /// A pipe whose ends are close-on-exec, so that no other program
    /// started meanwhile inherits them.
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }
}
