@preconcurrency import Glibc
import Dispatch

/// The version server of the soak: each path's first segment picks how it
/// answers, so that one server plays every kind of server at once.
///
/// | path            | answer                                                  |
/// |-----------------|---------------------------------------------------------|
/// | `/ok/…`         | a good document                                         |
/// | `/slow/…`       | the same, 2 s late                                      |
/// | `/fail/…`       | `500 Internal Server Error`                             |
/// | `/reset/…`      | a reset, no answer                                      |
/// | `/garbage/…`    | `200` with HTML                                         |
/// | `/big/…`        | `200` with 2 MiB (over `max-response-bytes`)            |
/// | `/loop/…`       | `302` to itself                                         |
/// | `/signed/…`     | a minisign-signed document, and its `.minisig`          |
final class SoakServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let document: [UInt8]
    private let signed: [UInt8]
    private let signature: [UInt8]
    private let serving = DispatchQueue(label: "io.ssvc.bench.soak-http")

    init(document: String, signed: [UInt8], signature: [UInt8]) throws(BenchError) {
        self.document = Array(document.utf8)
        self.signed = signed
        self.signature = signature
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
            if listener >= 0 { close(listener) }
            throw BenchError("cannot listen on 127.0.0.1")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        serving.async { self.serve() }
    }

    func url(_ kind: String, _ index: Int) -> String { "http://127.0.0.1:\(port)/\(kind)/\(index).json" }

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
            let work = Unmanaged.passRetained(Exchange(server: self, descriptor: connection)).toOpaque()
            var thread = pthread_t()
            guard pthread_create(&thread, nil, { raw in
                Unmanaged<Exchange>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, work) == 0 else {
                Unmanaged<Exchange>.fromOpaque(work).release()
                close(connection)
                continue
            }
            pthread_detach(thread)
        }
    }

    /// One connection: requests answered in turn until either side closes.
    private final class Exchange {
        let server: SoakServer
        let descriptor: Int32

        init(server: SoakServer, descriptor: Int32) {
            self.server = server
            self.descriptor = descriptor
        }

        func run() {
            defer { close(descriptor) }
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let endOfHead = Array("\r\n\r\n".utf8)
            while true {
                while let end = pending.firstRange(of: endOfHead) {
                    let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                    pending.removeSubrange(..<end.upperBound)
                    let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                    guard answer(target) else { return }
                }
                guard pending.count < 65_536 else { return }
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                pending += chunk[0..<count]
            }
        }

        /// Answers one request; false when the connection is done.
        private func answer(_ target: String) -> Bool {
            let kind = target.split(separator: "/").first.map(String.init) ?? ""
            switch kind {
            case "ok": return reply(200, server.document)
            case "slow":
                usleep(2_000_000)
                return reply(200, server.document)
            case "fail": return reply(500, Array("{\"error\":\"down\"}".utf8))
            case "reset":
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                return false
            case "garbage": return reply(200, Array("<html><body>It works!</body></html>".utf8))
            case "big": return reply(200, [UInt8](repeating: 0x20, count: 2 << 20))
            case "loop": return send(Array("HTTP/1.1 302 Found\r\nLocation: \(target)\r\nContent-Length: 0\r\n\r\n".utf8))
            case "signed": return reply(200, target.hasSuffix(".minisig") ? server.signature : server.signed)
            default: return reply(404, [])
            }
        }

        private func reply(_ status: Int, _ body: [UInt8]) -> Bool {
            let reason = [200: "OK", 404: "Not Found", 500: "Internal Server Error"][status] ?? "Status"
            let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
            return send(Array(head.utf8) + body)
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
