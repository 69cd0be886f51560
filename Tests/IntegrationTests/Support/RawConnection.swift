import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// A Unix-socket client that sends whatever a test wants, well-formed or not.
final class RawConnection {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Every byte received so far.
    private(set) var bytesReceived = 0

    init(_ path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let connected = UnixSocket.connect(descriptor, to: path)
        try #require(connected == 0, "cannot connect to \(path): \(String(cString: strerror(errno)))")
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            rest = rest.dropFirst(written)
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// A call as a NUL-terminated JSON message.
    func call(_ method: String, _ parameters: String = "{}", extra: String = "") {
        send("{\"method\":\"\(method)\",\"parameters\":\(parameters)\(extra)}\u{0}")
    }

    enum Received {
        case message([String: Any])
        case closed
        case nothing

        var isClosed: Bool { if case .closed = self { true } else { false } }
        var isNothing: Bool { if case .nothing = self { true } else { false } }
    }

    /// The next message, `.closed` when the daemon closed the connection,
    /// `.nothing` when `seconds` pass in silence; read off the pool.
    func receive(within seconds: Double = 5) async -> Received {
        let connection = Handed(self)
        return await offPool { connection.value.blockingReceive(within: seconds) }.value
    }

    /// Calls `method` and awaits the next message, timed on the thread that
    /// sends and receives: the daemon's answer time, not how long a busy test
    /// pool took to resume the caller.
    func ask(_ method: String, _ parameters: String = "{}", within seconds: Double = 10) async -> (reply: Received, seconds: Double) {
        let connection = Handed(self)
        let (reply, took) = await offPool {
            let started = ContinuousClock.now
            connection.value.call(method, parameters)
            let reply = connection.value.blockingReceive(within: seconds)
            return (reply, (ContinuousClock.now - started) / .seconds(1))
        }
        return (reply.value, took)
    }

    /// `receive`, blocking in `recv` for up to 200 ms at a time: for `offPool` only.
    private func blockingReceive(within seconds: Double) -> Handed<Received> {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let frame = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                let object = (try? JSONSerialization.jsonObject(with: frame)) as? [String: Any] ?? [:]
                return Handed(.message(object))
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return Handed(.closed) }
            if count < 0 {
                if errno == ECONNRESET { return Handed(.closed) }
                if Date() >= deadline { return Handed(.nothing) }
                continue
            }
            buffer.append(contentsOf: chunk[0..<count])
            bytesReceived += count
        }
    }
}

extension RawConnection.Received {
    var message: [String: Any]? {
        guard case let .message(object) = self else { return nil }
        return object
    }

    var error: String? {
        guard case let .message(object) = self else { return nil }
        return object["error"] as? String
    }

    var isReply: Bool {
        guard case let .message(object) = self else { return false }
        return object["parameters"] != nil && object["error"] == nil
    }
}
