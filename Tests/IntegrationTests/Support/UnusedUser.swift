import Foundation

/// A user id no process on this machine runs as and no account names, for a
/// test whose outcome depends on what else runs as its user (RLIMIT_NPROC
/// counts every process of the uid): `nobody` is shared with whatever else
/// the machine runs.
func unusedUserID() throws -> uid_t {
    let accounts = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? ""
    let named = Set(accounts.split(separator: "\n").compactMap { $0.split(separator: ":", omittingEmptySubsequences: false).dropFirst(2).first.flatMap { uid_t($0) } })
    var running = Set<uid_t>()
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
        let status = (try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { continue }
        running.formUnion(line.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { uid_t($0) })
    }
    for _ in 0..<100 {
        let candidate = uid_t.random(in: 1_900_000_000..<2_000_000_000)
        if !named.contains(candidate) && !running.contains(candidate) { return candidate }
    }
    throw UnusedUserError()
}

struct UnusedUserError: Error, CustomStringConvertible {
    var description: String { "no unused user id found between 1,900,000,000 and 2,000,000,000" }
}
