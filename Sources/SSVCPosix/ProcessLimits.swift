@preconcurrency import Glibc
import SSVCCore

/// What the process was started under that it cannot live with: signal
/// dispositions a parent left, and limits on files and tasks too low to run.
public enum ProcessLimits {
    /// Undoes what a parent may have set and a child inherits: SIGCHLD
    /// ignored (then `waitpid` finds no child, and every child's status is
    /// lost) and blocked signals (SIGTERM would never arrive). Called first
    /// thing, before any thread or child exists.
    public static func resetInheritedSignals() {
        signal(SIGCHLD, SIG_DFL)
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
    }

    /// Opens /dev/null on standard input, output and error where a parent
    /// left one closed (`ssvcd 2>&-`): else the next file opened takes its
    /// number, and every line for standard error went into it (the state
    /// lock, at a start with standard error closed). Called first thing.
    public static func openStandardStreams() {
        for stream: Int32 in 0...2 where fcntl(stream, F_GETFD) < 0 && errno == EBADF {
            // The lowest free number is this one: those below are open.
            let opened = open("/dev/null", stream == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != stream {
                dup2(opened, stream)
                close(opened)
            }
        }
    }

    /// How many more tasks (threads and processes) this process may start:
    /// the least of `RLIMIT_NPROC` (not applied to root) and its cgroup's
    /// `pids.max` less `pids.current` (systemd's `TasksMax=`); nil when
    /// neither limits it.
    public static func tasksLeft() -> (count: Int, limit: String)? {
        var found: (count: Int, limit: String)?
        var limit = rlimit()
        if geteuid() != 0, getrlimit(__rlimit_resource_t(__RLIMIT_NPROC.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            // The user's tasks count, this process's own among them.
            let soft = Int(min(UInt64(limit.rlim_cur), UInt64(Int32.max)))
            found = (soft - userTasks(), "RLIMIT_NPROC (systemd: LimitNPROC=) is \(soft)")
        }
        if let group = cgroupFolder(),
           let maximum = readNumber(group + "/pids.max"), let current = readNumber(group + "/pids.current") {
            let left = maximum - current
            if found.map({ left < $0.count }) ?? true { found = (left, "the cgroup's pids.max (systemd: TasksMax=) is \(maximum), \(current) in use") }
        }
        return found
    }

    /// The folder of this process's cgroup that holds `pids.max`, from
    /// /proc/self/cgroup: the v1 `pids` hierarchy's, else the unified
    /// one's (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid hosts).
    private static func cgroupFolder() -> String? {
        guard let bytes = try? BoundedReader.read(path: "/proc/self/cgroup", limit: 64 * 1024) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        var candidates: [String] = []
        for line in lines {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[1].split(separator: ",").contains("pids") { candidates.append("/sys/fs/cgroup/pids" + fields[2]) }
            if fields[0] == "0" && fields[1].isEmpty {
                candidates += ["/sys/fs/cgroup" + fields[2], "/sys/fs/cgroup/unified" + fields[2]]
            }
        }
        return candidates.first { FileSystem.exists($0 + "/pids.max") }
    }

    /// A file's first line as a number; nil when absent or "max".
    private static func readNumber(_ path: String) -> Int? {
        guard let bytes = try? BoundedReader.read(path: path, limit: 64) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimming(" \n"))
    }

    /// Tasks of this process's real user, counted over /proc's threads.
    private static func userTasks() -> Int {
        let uid = getuid()
        var count = 0
        for name in (try? FileSystem.names(in: "/proc")) ?? [] where name.first?.isNumber == true {
            var info = stat()
            guard stat("/proc/" + name, &info) == 0, info.st_uid == uid else { continue }
            count += ((try? FileSystem.names(in: "/proc/\(name)/task")) ?? []).count
        }
        return count
    }
}
