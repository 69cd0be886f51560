@preconcurrency import Glibc
import SSVCCore
import SSVCPosix

/// What the figures were measured on, printed on every line.
enum Machine {
    static let summary: String = {
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let model = firstValue(in: "/proc/cpuinfo", key: "model name") ?? "unknown CPU"
        let memory = firstValue(in: "/proc/meminfo", key: "MemTotal")
            .flatMap { Int($0.split(separator: " ").first ?? "") }
            .map { "\(($0 + 512 * 1024) / (1024 * 1024)) GiB" } ?? "? GiB"
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(cores) cores \(model), \(memory), Linux \(release)"
    }()

    /// The value after "key:" on the first line that starts with `key`.
    static func firstValue(in path: String, key: String) -> String? {
        guard let text = ProcFile.read(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimming(" \t")
        }
        return nil
    }
}

/// Reads small files such as those under /proc.
enum ProcFile {
    static func read(_ path: String) -> String? {
        (try? BoundedReader.read(path: path, limit: 16 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The number on a `Name:  value [kB]` line of /proc/PID/status.
    static func statusNumber(_ pid: pid_t, _ name: String) -> Int? {
        firstNumber(in: "/proc/\(pid)/status", key: name + ":")
    }

    /// The first number after `key` on the first line that starts with it.
    static func firstNumber(in path: String, key: String) -> Int? {
        guard let text = read(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }
}

/// What a process holds, by name, from /proc: so that a count above the
/// start can say what the extra is.
enum ProcHeld {
    /// Each open descriptor's target: files by path, anonymous inodes by
    /// kind (`anon_inode:[timerfd]`), pipes as `pipe`, sockets as what
    /// they are (`unix /path`, `unix`, `tcp ESTABLISHED`).
    static func descriptors(_ pid: pid_t) -> [String] {
        let sockets = socketKinds(pid)
        return entries("/proc/\(pid)/fd").map { descriptor(pid, $0, sockets: sockets) }
    }

    /// What descriptor `number` of `pid` is, as `descriptors` names it.
    static func descriptor(_ pid: pid_t, _ number: String, sockets: [String: String]) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/fd/\(number)", &buffer, buffer.count - 1)
        guard length > 0 else { return "?" }
        let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("pipe:[") { return "pipe" }
        if target.hasPrefix("socket:[") { return sockets[String(target.dropFirst(8).dropLast())] ?? "socket" }
        return target
    }

    /// What each socket inode of `pid`'s network namespace is, from
    /// /proc/PID/net/{unix,tcp,tcp6}.
    static func socketKinds(_ pid: pid_t) -> [String: String] {
        var kinds: [String: String] = [:]
        // unix: Num RefCount Protocol Flags Type St Inode [Path]
        for line in (ProcFile.read("/proc/\(pid)/net/unix") ?? "").split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 7 else { continue }
            kinds[String(fields[6])] = fields.count > 7 ? "unix \(fields[7])" : "unix"
        }
        // tcp: sl local remote st ... inode (the tenth field)
        let states = ["01": "ESTABLISHED", "06": "TIME_WAIT", "08": "CLOSE_WAIT", "0A": "LISTEN"]
        for file in ["tcp", "tcp6"] {
            for line in (ProcFile.read("/proc/\(pid)/net/\(file)") ?? "").split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count >= 10 else { continue }
                kinds[String(fields[9])] = "tcp \(states[String(fields[3])] ?? String(fields[3]))"
            }
        }
        return kinds
    }

    /// Each thread's name (`comm`).
    static func threads(_ pid: pid_t) -> [String] {
        entries("/proc/\(pid)/task").map { task in
            String(ProcFile.read("/proc/\(pid)/task/\(task)/comm")?.split(separator: "\n").first ?? "?")
        }
    }

    /// What `now` has more of than `start`, each name with how many more.
    static func extra(_ now: [String], over start: [String]) -> [String] {
        let before = Dictionary(start.map { ($0, 1) }, uniquingKeysWith: +)
        return Dictionary(now.map { ($0, 1) }, uniquingKeysWith: +).sorted { $0.key < $1.key }.compactMap { name, count in
            let more = count - (before[name] ?? 0)
            return more > 0 ? "\(more) \(name)" : nil
        }
    }

    /// `names` counted: "2 ssvcd, 1 NIO-ELT-0-#0".
    static func counted(_ names: [String]) -> String {
        extra(names, over: []).joined(separator: ", ")
    }

    private static func entries(_ folder: String) -> [String] {
        (try? FileSystem.names(in: folder)) ?? []
    }
}
