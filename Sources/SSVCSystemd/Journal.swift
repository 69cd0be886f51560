@preconcurrency import Glibc
import CSystemd

/// Native journal entries, sent as `sd_journal_sendv(3)` sends them
/// (`ssvc_journal_sendv`, without libsystemd).
public enum Journal {
    /// The socket journald listens on; `auto` logging uses the journal when it exists.
    public static let socketPath = "/run/systemd/journal/socket"

    public static var isReachable: Bool {
        var info = stat()
        return stat(socketPath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Whether standard error is a journal stream already: systemd sets
    /// `JOURNAL_STREAM=device:inode` for a service's standard streams. A
    /// line written there besides a native entry would be the same event
    /// twice, once without fields.
    public static var isStandardErrorJournalStream: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Sends one entry of `NAME=value` fields; false when journald did not
/// take it, or none listens.
    /// Field names must be valid (see `fieldName(_:)`); values may hold any bytes.
    @discardableResult
    public static func send(_ fields: [(name: String, value: String)], socket: String = socketPath) -> Bool {
        // One buffer that outlives the call; the iovecs point into it.
        var buffer: [UInt8] = []
        var spans: [(offset: Int, length: Int)] = []
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: field.value.utf8)
            spans.append((start, buffer.count - start))
        }
        return buffer.withUnsafeMutableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            var vectors = spans.map { iovec(iov_base: base + $0.offset, iov_len: $0.length) }
            return ssvc_journal_sendv(socket, &vectors, Int32(vectors.count)) == 0
        }
    }

    /// A valid journal field name for `key`: upper case, `A–Z 0–9 _` only,
    /// not starting with `_` (those are journald's own) or a digit, at most 64 bytes.
    public static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().unicodeScalars.map { scalar -> Character in
            (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") ? Character(scalar) : "_"
        })
        while name.hasPrefix("_") { name.removeFirst() }
        if name.first?.isNumber == true { name = "F" + name }
        if name.isEmpty { name = "FIELD" }
        return String(name.prefix(64))
    }
}
