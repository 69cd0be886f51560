@preconcurrency import Glibc
import CSystemd
import Dispatch
import NIOConcurrencyHelpers
import SSVCPosix

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

    /// One entry's fields, `NAME=value` each, in one buffer.
    public struct Entry: Sendable {
        var bytes: [UInt8] = []
        var spans: [Range<Int>] = []

        /// Field names must be valid (see `fieldName(_:)`); values may hold any bytes.
        public init(_ fields: [(name: String, value: String)]) {
            for field in fields {
                let start = bytes.count
                bytes.append(contentsOf: field.name.utf8)
                bytes.append(UInt8(ascii: "="))
                bytes.append(contentsOf: field.value.utf8)
                spans.append(start..<bytes.count)
            }
        }

        /// `ssvc_journal_sendv`'s result: 0, or -errno.
        func send(to socket: String, wait: Bool) -> Int32 {
            var bytes = bytes
            return bytes.withUnsafeMutableBytes { raw -> Int32 in
                guard let base = raw.baseAddress else { return -EINVAL }
                var vectors = spans.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
                return ssvc_journal_sendv(socket, &vectors, Int32(vectors.count), wait ? 1 : 0)
            }
        }
    }

    /// Sends one entry and waits as long as journald does; true when
    /// journald took it. For tests: the daemon sends through
    /// `JournalSender`, which never waits.
    @discardableResult
    public static func send(_ fields: [(name: String, value: String)], socket: String = socketPath) -> Bool {
        Entry(fields).send(to: socket, wait: true) == 0
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

/// Journal entries sent so that journald can never hold the daemon up.
///
/// Sent as libsystemd sends them, journald's socket blocks the sender once
/// its queue is full: a journald that stops reading (stopped, wedged on a
/// disk) stopped ssvcd after about ten entries, its socket and checks with
/// it (issue 55). Here an entry is sent without waiting; one journald
/// cannot take now waits, in order, on a queue of its own that sends it
/// when journald reads again, and entries that come meanwhile join it.
/// At most `maximumQueuedBytes` wait: past that, entries are dropped and
/// counted, and the count is said in an entry of its own once journald
/// reads again. An entry journald refuses (none listens, or it fails) is
/// handed to `fallback`.
public final class JournalSender: Sendable {
    /// What became of an entry.
    public enum Outcome: Equatable, Sendable {
        /// journald took it.
        case sent
        /// It waits for journald; `fallback` runs if journald then refuses it.
        case queued
        /// journald reads nothing and the queue is full: counted, and said later.
        case dropped
        /// journald refused it.
        case failed(Int32)
    }

    public static let shared = JournalSender(socket: Journal.socketPath)

    /// The most the queue holds: a minute of a busy daemon's entries.
    public static let maximumQueuedBytes = 4 << 20

    private let socket: String
    private let queue: DispatchQueue
    private struct Waiting {
        var entries = 0
        var bytes = 0
        var dropped = 0
    }

    private let waiting = NIOLockedValueBox(Waiting())

    public init(socket: String) {
        self.socket = socket
        queue = DispatchQueue(label: "io.ssvc.journal")
    }

    /// Sends `entry` or queues it; never waits for journald.
    public func send(_ entry: Journal.Entry, fallback: @escaping @Sendable () -> Void) -> Outcome {
        // While entries wait, a new one joins them: journald keeps the order.
        if waiting.withLockedValue({ $0.entries == 0 }) {
            let result = entry.send(to: socket, wait: false)
            if result == 0 { return .sent }
            if result != -EAGAIN { return .failed(-result) }
        }
        let size = entry.bytes.count
        let accepted = waiting.withLockedValue { waiting -> Bool in
            guard waiting.bytes + size <= Self.maximumQueuedBytes else {
                waiting.dropped += 1
                return false
            }
            waiting.entries += 1
            waiting.bytes += size
            return true
        }
        guard accepted else { return .dropped }
        queue.async { [self] in
            let result = entry.send(to: socket, wait: true)
            let dropped = waiting.withLockedValue { waiting -> Int in
                waiting.entries -= 1
                waiting.bytes -= size
                guard waiting.entries == 0 else { return 0 }
                defer { waiting.dropped = 0 }
                return waiting.dropped
            }
            if result != 0 { fallback() }
            if dropped > 0 { sayDropped(dropped) }
        }
        return .queued
    }

    /// The entry that says how many were lost while journald read nothing.
    private func sayDropped(_ count: Int) {
        let message = "\(count) journal \(count == 1 ? "entry" : "entries") dropped while journald read nothing: more than \(Self.maximumQueuedBytes >> 20) MiB waited"
        let entry = Journal.Entry([("MESSAGE", message), ("PRIORITY", "4"), ("SYSLOG_IDENTIFIER", "ssvcd"), ("SSVC_ERROR", message)])
        if entry.send(to: socket, wait: true) != 0 { StandardErrorLines.shared.write("<4>" + message) }
    }

    /// Entries queued and not yet sent, and those dropped since journald last read: for tests.
    public var backlog: (entries: Int, dropped: Int) {
        waiting.withLockedValue { ($0.entries, $0.dropped) }
    }

    /// Calls `done` once every entry queued before has been tried, or after
    /// `seconds` in any case: a stop must not lose its last entries to a
    /// busy journald, nor wait for ever on one that reads nothing.
    public func afterSent(within seconds: Double, _ done: @escaping @Sendable () -> Void) {
        guard waiting.withLockedValue({ $0.entries > 0 }) else { return done() }
        queue.afterQueued(within: seconds, done)
    }
}
