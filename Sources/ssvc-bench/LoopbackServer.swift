@preconcurrency import Glibc
import Dispatch

/// An HTTP/1.1 server on 127.0.0.1 answering every request with one
/// document, without an ETag and with `Connection: close`: each check
/// fetches the whole body on a new connection, as curl does. One thread
/// serves the connections one after another; that is plenty for figures
/// that measure the daemon, not the server.
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
            Connection: close\r
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
            answer(connection)
            close(connection)
        }
    }

    /// Reads the request head (the daemon sends no body) and writes the document.
    private func answer(_ connection: Int32) {
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let endOfHead = Array("\r\n\r\n".utf8)
        while !request.ends(with: endOfHead) && request.count < 65_536 {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            request += chunk[0..<count]
        }
        var sent = 0
        while sent < response.count {
            let count = response.withUnsafeBytes { send(connection, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            sent += count
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
