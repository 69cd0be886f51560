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
