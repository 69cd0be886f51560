import Foundation
import SSVCPosix
import Testing

/// Every local user can reach the control socket: none may take the
/// daemon's memory or descriptors, or keep root from being answered.
@Suite("local users: bounded memory and descriptors per client", .serialized)
struct LocalUserLimitsTests {
    /// Sends `GetStatus` calls on `connections` sockets that never read,
    /// for `seconds`, as fast as the daemon takes them; the bytes it took.
    func flood(_ path: String, connections: Int, seconds: Double, while probe: () -> Void = {}) throws -> Int {
        let call = Array(#"{"method":"io.ssvc.Daemon.GetStatus"}"#.utf8) + [0]
        let block = Array([[UInt8]](repeating: call, count: 1_000).joined())
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<connections {
            let descriptor = try UnixSocket.connected(to: path)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            sockets.append(descriptor)
        }
        var taken = 0
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var progressed = false
            for descriptor in sockets {
                let count = block.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    taken += count
                    progressed = true
                }
            }
            probe()
            if !progressed { usleep(5_000) }
        }
        return taken
    }

    @Test("clients that pipeline GetStatus and never read: the daemon stops reading them, its memory stays flat, others are answered")
    func neverReadingClients() throws {
        let daemon = try controlDaemon()
        let before = daemon.residentKiB
        var slowest = 0.0
        let probe = try RawConnection(daemon.socketPath)
        let taken = try flood(daemon.socketPath, connections: 6, seconds: 4) {
            let started = Date()
            probe.call("io.ssvc.Daemon.GetStatus")
            guard case .message = probe.receive(within: 5) else { return slowest = .infinity }
            slowest = max(slowest, Date().timeIntervalSince(started))
        }
        let grown = daemon.residentKiB - before
        #expect(grown < 32 * 1024, "RSS grew by \(grown) KiB after the daemon took \(taken) bytes of calls")
        #expect(taken < 64 << 20, "the daemon kept reading clients that never read: \(taken) bytes")
        #expect(slowest < 0.5, "another client's GetStatus took \(slowest) s")
        try expectHealthy(daemon)
        #expect(daemon.stop() == 0)
    }
}
