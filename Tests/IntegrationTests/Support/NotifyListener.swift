import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// A datagram socket standing in for systemd's NOTIFY_SOCKET.
final class NotifyListener {
    let path: String
    private let descriptor: Int32

    init(folder: TemporaryFolder) throws {
        path = folder.url.appendingPathComponent("notify").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(descriptor >= 0)
        let bound = UnixSocket.bind(descriptor, to: path)
        try #require(bound == 0, "cannot bind \(path)")
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Sends datagrams to the listener itself, without waiting, until its
    /// queue is full; the count sent. Throws when it never fills.
    func fill() throws -> Int {
        var sent = 0
        while sendWithoutWaiting() == 0 {
            sent += 1
            try #require(sent < 100_000, "\(path) never filled")
        }
        return sent
    }

    /// One datagram to the listener, with `MSG_DONTWAIT`: 0 when sent,
    /// else the errno (EAGAIN while the queue is full).
    func sendWithoutWaiting() -> Int32 {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard sender >= 0 else { return errno }
        defer { close(sender) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8.prefix($0.count - 1)) }
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(sender, "X=1", 3, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return sent == 3 ? 0 : errno
    }

    /// Messages received until `condition` holds on all of them, or `seconds`
    /// pass; read off the pool (`recv` blocks for up to 100 ms at a time).
    /// `fresh` first drops what was queued before the call, so that the
    /// window counts only what arrives in it.
    func receive(for seconds: Double, fresh: Bool = false, until condition: @escaping @Sendable ([String]) -> Bool) async -> [String] {
        let descriptor = descriptor
        return await offPool {
            if fresh { Self.drain(descriptor) }
            return Self.receive(from: descriptor, for: seconds, until: condition)
        }
    }

    private static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
    }

    private static func receive(from descriptor: Int32, for seconds: Double, until condition: ([String]) -> Bool) -> [String] {
        var messages: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline && !condition(messages) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { messages.append(String(decoding: buffer[0..<count], as: UTF8.self)) }
        }
        return messages
    }
}
