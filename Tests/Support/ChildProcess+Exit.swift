@preconcurrency import Glibc
import SSVCPosix

extension ChildProcess {
    /// Awaits the child's end, without holding a thread of Swift's pool: a
    /// thread of its own waits (`waitid` with `WNOWAIT`, which leaves the
    /// child to be reaped here), so no `isRunning` elsewhere can race it.
    public func exited() async -> Termination {
        await ended().termination
    }

    /// `exited()`, with the moment the waiting thread saw the end: a test
    /// that times a program measures the program, not how long a busy pool
    /// took to resume the awaiting task.
    public func ended() async -> (termination: Termination, at: ContinuousClock.Instant) {
        if let termination { return (termination, .now) }
        let pid = pid
        let at = await offPool { Self.awaitEnd(of: pid) }
        return (wait(), at)  // reaps what has ended: returns at once
    }

    /// Awaits the child's end for at most `seconds`; one still running then
    /// is killed with SIGKILL (its process group with `group`), and its end
    /// awaited. `timedOut` says which; `at` is when the end was seen.
    public func exited(
        within seconds: Double, group: Bool = false
    ) async -> (termination: Termination, timedOut: Bool, at: ContinuousClock.Instant) {
        if let termination { return (termination, false, .now) }
        let pid = pid
        let (timedOut, at) = await withTaskGroup(of: (Bool, ContinuousClock.Instant?).self) { tasks in
            tasks.addTask {
                (false, await offPool { Self.awaitEnd(of: pid) })
            }
            tasks.addTask {
                do {
                    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                } catch {
                    return (false, nil)  // cancelled: the child ended first
                }
                // Not reaped yet (WNOWAIT), so the pid is still the child's.
                kill(group ? -pid : pid, SIGKILL)
                return (true, nil)
            }
            var timedOut = false
            var at = ContinuousClock.now
            for await (killed, seen) in tasks {
                timedOut = timedOut || killed
                if let seen { at = seen }
                tasks.cancelAll()
            }
            return (timedOut, at)
        }
        return (wait(), timedOut, at)
    }

    /// Blocks until `pid` has ended, leaving it unreaped; when it saw the end.
    private static func awaitEnd(of pid: pid_t) -> ContinuousClock.Instant {
        var information = siginfo_t()
        while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return .now
    }
}
