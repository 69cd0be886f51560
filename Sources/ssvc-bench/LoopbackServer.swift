@preconcurrency import Glibc
import Dispatch

/// An HTTP/1.1 server on 127.0.0.1 answering every request with one
/// document, without an ETag: each check fetches the whole body, as curl
/// does. Connections are kept alive, each served by a thread of its own;
/// that is plenty for figures that measure the daemon, not the server.
final class LoopbackServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let response: [UInt8]
    private let serving = DispatchQueue(label: "io.ssvc.bench.http")

    init(body: String) throws(BenchError) {
        response = Array("""
            HTTP/1.1 200 OK\r
            Content-Type: application/json\r
            Content-Length: \(body.utf8.count)\r
            \r
            \(body)
            """.utf8)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 128) == 0 && getsockname(listener, $0, &length) == 0
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

    var url: String { "http://127.0.0.1:\(port)/version.json" }

    /// Stops accepting: the serving thread's `accept` fails and it returns.
    func shutdown() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        serving.sync {}
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let work = Unmanaged.passRetained(Connection(descriptor: connection, response: response)).toOpaque()
            var thread = pthread_t()
            guard pthread_create(&thread, nil, { raw in
                let connection = Unmanaged<Connection>.fromOpaque(raw!).takeRetainedValue()
                connection.answerUntilClosed()
                return nil
            }, work) == 0 else {
                Unmanaged<Connection>.fromOpaque(work).release()
                close(connection)
                continue
            }
            pthread_detach(thread)
        }
    }

    /// One client's connection: each request head (the daemon sends no
    /// body) gets the document, until the client closes.
    private final class Connection {
        let descriptor: Int32
        let response: [UInt8]

        init(descriptor: Int32, response: [UInt8]) {
            self.descriptor = descriptor
            self.response = response
        }

        func answerUntilClosed() {
            defer { close(descriptor) }
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let endOfHead = Array("\r\n\r\n".utf8)
            while true {
                while let end = pending.firstRange(of: endOfHead) {
                    pending.removeSubrange(..<end.upperBound)
                    guard send(response) else { return }
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
