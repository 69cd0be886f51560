@preconcurrency import Glibc
import Dispatch
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 for the benchmarks. Each request's
/// target is handed to `answer`, which says what goes back; connections
/// are kept alive, each served by a thread of its own (the answer may
/// sleep): plenty for figures that measure the daemon, not the server.
final class LoopbackServer: @unchecked Sendable {
    /// What one request gets.
    enum Reply: Sendable {
        /// These bytes, a whole response.
        case send([UInt8])
        /// A reset, no answer.
        case reset
    }

    let port: Int
    private let listener: Int32
    private let answer: @Sendable (_ target: String) -> Reply
    private let serving = DispatchQueue(label: "io.ssvc.bench.http")
    private let stopped = Atomic<Bool>(false)
    /// Connections open now, so that `shutdown` can end them.
    private let open = Mutex<Set<Int32>>([])

    init(answer: @escaping @Sendable (_ target: String) -> Reply) throws(BenchError) {
        self.answer = answer
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1024) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listener >= 0, bound else {
            let reason = String(cString: strerror(errno))
            if listener >= 0 { close(listener) }
            throw BenchError("cannot listen on 127.0.0.1: \(reason)")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        serving.async { self.serve() }
    }

    /// Every request answered with one document, without an ETag: each
    /// check fetches the whole body, as curl does.
    convenience init(body: String) throws(BenchError) {
        let response = Self.response(200, Array(body.utf8))
        try self.init { _ in .send(response) }
    }

    var url: String { "http://127.0.0.1:\(port)/version.json" }

    /// A whole response: status line, `Content-Type`, `Content-Length`, body.
    static func response(_ status: Int, _ body: [UInt8]) -> [UInt8] {
        let reason = [200: "OK", 404: "Not Found", 500: "Internal Server Error"][status] ?? "Status"
        return Array("HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    /// Stops accepting (the serving thread's `accept` fails and it
    /// returns) and ends every open connection: a client's next request is
    /// refused, not answered on a kept-alive connection. Only the first
    /// call does anything.
    func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        serving.sync {}
        close(listener)
        open.withLock { for descriptor in $0 { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) } }
    }

    /// A connection's descriptor leaves the set before it is closed, so
    /// `shutdown` never touches a number the system has given out again.
    private func closeConnection(_ descriptor: Int32) {
        open.withLock { _ = $0.remove(descriptor) }
        close(descriptor)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            open.withLock { _ = $0.insert(connection) }
            let work = Unmanaged.passRetained(Connection(descriptor: connection, server: self)).toOpaque()
            var thread = pthread_t()
            guard pthread_create(&thread, nil, { raw in
                Unmanaged<Connection>.fromOpaque(raw!).takeRetainedValue().answerUntilClosed()
                return nil
            }, work) == 0 else {
                Unmanaged<Connection>.fromOpaque(work).release()
                closeConnection(connection)
                continue
            }
            pthread_detach(thread)
        }
    }

    /// One client's connection: each request head (the daemon sends no
    /// body) gets its answer, until either side closes.
    private final class Connection {
        let descriptor: Int32
        let server: LoopbackServer

        init(descriptor: Int32, server: LoopbackServer) {
            self.descriptor = descriptor
            self.server = server
        }

        func answerUntilClosed() {
            defer { server.closeConnection(descriptor) }
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let endOfHead = Array("\r\n\r\n".utf8)
            while true {
                while let end = pending.firstRange(of: endOfHead) {
                    let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                    pending.removeSubrange(..<end.upperBound)
                    let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                    switch server.answer(target) {
                    case let .send(bytes):
                        guard send(bytes) else { return }
                    case .reset:
                        var linger = linger(l_onoff: 1, l_linger: 0)
                        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                        return
                    }
                }
                guard pending.count < 65_536 else { return }
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                pending += chunk[0..<count]
            }
        }

        private func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }
}
