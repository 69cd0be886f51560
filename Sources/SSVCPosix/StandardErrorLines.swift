@preconcurrency import Glibc
import Dispatch
import NIOConcurrencyHelpers
import SSVCCore

/// A running daemon's lines for standard error, written without ever
/// waiting for its reader.
///
/// `write(2)` to a pipe whose reader has stopped (a supervisor that reads
/// nothing, a log collector wedged on its disk) or to a terminal held with
/// Ctrl-S waits once the pipe's 64 KiB are full; ssvcd logged on the queue
/// that serves its socket and its checks, and stopped answering at all. So
/// a line is written at once only while `poll(2)` says the reader has room,
/// 4 KiB at a time (what a pipe with a free slot takes without waiting);
/// else it waits, in order, on a queue of its own that writes when the
/// reader reads again, and the lines that come meanwhile join it. At most
/// `maximumQueuedBytes` wait: past that, lines are dropped and counted, and
/// the count is written once the reader has caught up.
public final class StandardErrorLines: Sendable {
    /// What became of a line.
    public enum Outcome: Equatable, Sendable {
        /// Written.
        case written
        /// Waiting for the reader (its start may be written).
        case queued
        /// The reader reads nothing and the queue is full: counted, and said later.
        case dropped
    }

    public static let shared = StandardErrorLines(descriptor: STDERR_FILENO)

    /// The most that waits: minutes of a busy daemon's lines.
    public static let maximumQueuedBytes = 1 << 20

    /// The most one `write(2)` is given: a pipe that `poll(2)` calls
    /// writable has a free slot of a page, and takes that without waiting.
    static let chunk = 4_096

    private struct Waiting {
        var lines = 0
        var bytes = 0
        var dropped = 0
    }

    private let descriptor: Int32
    private let limit: Int
    private let waiting = NIOLockedValueBox(Waiting())
    private let queue = DispatchQueue(label: "io.ssvc.stderr")

    /// `limit` is for tests.
    public init(descriptor: Int32, limit: Int = maximumQueuedBytes) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// Writes `line` and a newline, or queues them; never waits for the reader.
    @discardableResult
    public func write(_ line: String) -> Outcome {
        let bytes = Array((line + "\n").utf8)
        // Written at once only while nothing waits: the order holds. The
        // lock keeps two threads' lines from interleaving.
        let rest: ArraySlice<UInt8>? = waiting.withLockedValue { waiting in
            var written = 0
            if waiting.lines == 0 {
                written = writeWithoutWaiting(bytes)
                if written == bytes.count { return [] }
            }
            // A line begun is finished, whatever the bound.
            if written == 0, waiting.bytes + bytes.count > limit {
                waiting.dropped += 1
                return nil
            }
            waiting.lines += 1
            waiting.bytes += bytes.count - written
            return bytes[written...]
        }
        guard let rest else { return .dropped }
        if rest.isEmpty { return .written }
        queue.async { [self] in
            writeAll(rest)
            let dropped = waiting.withLockedValue { waiting -> Int in
                waiting.lines -= 1
                waiting.bytes -= rest.count
                guard waiting.lines == 0 else { return 0 }
                defer { waiting.dropped = 0 }
                return waiting.dropped
            }
            if dropped > 0 {
                writeAll(Array("<4>ssvcd: \(dropped) \(dropped == 1 ? "line" : "lines") for standard error dropped while its reader read nothing: more than \(limit >> 10) KiB waited\n".utf8)[...])
            }
        }
        return .queued
    }

    /// `write`s `text` with its control characters escaped as the journal
    /// shows them: nothing from a file or a server reaches a terminal raw.
    @discardableResult
    public func writeEscaped(_ text: String) -> Outcome {
        write(DisplayText.escaped(text, limit: .max))
    }

    /// Lines queued and not yet written, and those dropped since the reader last caught up: for tests.
    public var backlog: (lines: Int, dropped: Int) {
        waiting.withLockedValue { ($0.lines, $0.dropped) }
    }

    /// Calls `done` once every line queued before has been written, or
    /// after `seconds` in any case: an exit must not lose its last lines to
    /// a slow reader, nor wait for ever on one that reads nothing.
    public func afterWritten(within seconds: Double, _ done: @escaping @Sendable () -> Void) {
        guard waiting.withLockedValue({ $0.lines > 0 }) else { return done() }
        queue.afterQueued(within: seconds, done)
    }

    /// Writes what the reader takes now; how many bytes that was. A closed
    /// or failing descriptor takes everything: there is no one to tell.
    private func writeWithoutWaiting(_ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, 0)
            if polled < 0 {
                if errno == EINTR { continue }
                return bytes.count
            }
            if polled == 0 { return offset }
            if ready.revents & Int16(POLLNVAL | POLLERR) != 0 { return bytes.count }
            let size = min(Self.chunk, bytes.count - offset)
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, size) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return offset }
                return bytes.count
            }
            offset += written
        }
        return offset
    }

    /// Writes all of `bytes`, waiting for the reader: on the queue's thread only.
    private func writeAll(_ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                // A parent's O_NONBLOCK on the stream: wait here instead.
                if errno == EAGAIN {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                return
            }
            rest = rest.dropFirst(written)
        }
    }
}
