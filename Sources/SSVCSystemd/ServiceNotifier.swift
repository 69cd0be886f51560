@preconcurrency import Glibc
import CSystemd
import Dispatch
import SSVCPosix

/// sd_notify(3)'s messages to the service manager, sent so that they can
/// never hold the daemon up.
///
/// libsystemd's `sd_notify` sends with a blocking `sendmsg`: a Unix datagram
/// socket queues at most `net.unix.max_dgram_qlen` (10) unread messages, and
/// once a stalled supervisor has that many, the next call blocks its thread
/// for as long as the stall lasts. Here every message is handed to a serial
/// queue of its own and sent with `MSG_DONTWAIT`. While the queue is full,
/// `STATUS=` lines are coalesced to the latest, and `READY=1`, `STOPPING=1`
/// and `WATCHDOG=1` wait in order (a watchdog ping once) and are sent again
/// every 250 ms until they go through. Nothing runs while nothing is waiting.
public final class ServiceNotifier: @unchecked Sendable {
    /// What became of one send.
    ///
    /// | outcome          | meaning                                             |
    /// |------------------|-----------------------------------------------------|
    /// | `.notSupported`  | no `NOTIFY_SOCKET`: not run by a service manager    |
    /// | `.wouldBlock`    | the manager's queue is full; try again later        |
    /// | `.failed(errno)` | the socket is set but the message could not be sent |
    /// | `.sent`          | delivered                                           |
    public enum Outcome: Equatable, Sendable {
        case notSupported
        case wouldBlock
        case failed(Int32)
        case sent
    }

    /// The process's notifier, on `NOTIFY_SOCKET` as it was at the first use.
    public static let shared = ServiceNotifier(socketPath: getenv("NOTIFY_SOCKET").map { String(cString: $0) })

    private let queue = DispatchQueue(label: "io.ssvc.notify")
    private let address: [UInt8]?
    /// Guarded by `queue`.
    private var descriptor: Int32 = -1
    private var waiting: [String] = []
    private var latestStatus: String?
    private var retry: DispatchSourceTimer?
    private var lastFailure: Int32?

    /// `socketPath`: a path, or `@name` for an abstract socket; nil or any
    /// other form (such as `vsock:`) means no service manager to tell.
    public init(socketPath: String?) {
        guard let socketPath, socketPath.hasPrefix("/") || socketPath.hasPrefix("@"), socketPath.utf8.count >= 2,
              socketPath.utf8.count < 108, !socketPath.utf8.contains(0)
        else {
            address = nil
            return
        }
        var bytes = Array(socketPath.utf8)
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
        address = bytes
    }

    /// Whether a service manager is listening at all.
    public var isSupported: Bool { address != nil }

    /// Hands `message` over and returns at once. A message holding
    /// `STATUS=` alone replaces any status still waiting; anything else
    /// (`READY=1`, `STOPPING=1`, `WATCHDOG=1`) is kept until it is sent.
    public func notify(_ message: String) {
        guard address != nil else { return }
        queue.async { [self] in
            if message.hasPrefix("STATUS=") && !message.contains("\n") {
                latestStatus = message
            } else if !(message == "WATCHDOG=1" && waiting.contains(message)) {
                waiting.append(message)
            }
            flush()
        }
    }

    /// Runs `body` on the notifier's queue once everything handed over
    /// before it has been tried: for tests and a clean stop.
    public func afterPending(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Runs `body` on the notifier's queue once nothing waits to be sent,
    /// or after `seconds` in any case: a stop must not lose `STOPPING=1` to
    /// a manager's full queue, nor wait for ever on one that reads nothing.
    public func afterSent(within seconds: Double, _ body: @escaping @Sendable () -> Void) {
        let deadline = DispatchTime.now() + seconds
        @Sendable func check() {
            if (waiting.isEmpty && latestStatus == nil) || DispatchTime.now() >= deadline {
                body()
                return
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(50)) { check() }
        }
        queue.async { check() }
    }

    /// Messages not yet sent, oldest first, status last: for tests.
    public func pendingMessages() -> [String] {
        queue.sync { waiting + (latestStatus.map { [$0] } ?? []) }
    }

    /// Sends what waits, in order, until the manager's queue is full.
    private func flush() {
        while let next = waiting.first ?? latestStatus {
            switch send(next) {
            case .wouldBlock:
                scheduleRetry()
                return
            case let .failed(code):
                // Nobody to tell (the manager went away) is not worth a retry.
                if lastFailure != code {
                    StandardErrorLines.shared.write("ssvcd: cannot notify the service manager: \(String(cString: strerror(code)))")
                }
                lastFailure = code
            case .sent, .notSupported:
                lastFailure = nil
            }
            if waiting.isEmpty { latestStatus = nil } else { waiting.removeFirst() }
        }
        retry?.cancel()
        retry = nil
    }

    private func scheduleRetry() {
        guard retry == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.activate()
        retry = timer
    }

    /// One non-blocking send of `message`.
    public func send(_ message: String) -> Outcome {
        guard let address else { return .notSupported }
        if descriptor < 0 {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            if descriptor < 0 { return .failed(errno) }
        }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: address) }
        // An abstract name's length is exact; a path's includes its NUL.
        let length = MemoryLayout<sa_family_t>.size + address.count + (address[0] == 0 ? 0 : 1)
        let bytes = Array(message.utf8)
        let result = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), target, socklen_t(length)) }
            }
        }
        if result >= 0 { return .sent }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .wouldBlock : .failed(code)
    }

    /// The ping interval systemd expects (half its `WATCHDOG_USEC`), or nil
    /// when no watchdog is set for this process (`WATCHDOG_PID` names
    /// another). At least 100 ms, whatever it says: a watchdog of a few
    /// microseconds would otherwise keep a CPU busy pinging.
    public static func watchdogPingInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard ssvc_watchdog_enabled(&microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(min(max(microseconds / 2, 100_000), UInt64(Int64.max))))
    }
}

