@preconcurrency import Glibc

/// The version server of the soak: each path's first segment picks how it
/// answers, so that one `LoopbackServer` plays every kind of server at once.
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
enum SoakServer {
    static func start(document: String, signed: [UInt8], signature: [UInt8]) throws(BenchError) -> LoopbackServer {
        let ok = LoopbackServer.response(200, Array(document.utf8))
        let failed = LoopbackServer.response(500, Array("{\"error\":\"down\"}".utf8))
        let garbage = LoopbackServer.response(200, Array("<html><body>It works!</body></html>".utf8))
        let big = LoopbackServer.response(200, [UInt8](repeating: 0x20, count: 2 << 20))
        let signedDocument = LoopbackServer.response(200, signed)
        let signedSignature = LoopbackServer.response(200, signature)
        let missing = LoopbackServer.response(404, [])
        return try LoopbackServer { target in
            switch target.split(separator: "/").first ?? "" {
            case "ok": return .send(ok)
            case "slow":
                usleep(2_000_000)
                return .send(ok)
            case "fail": return .send(failed)
            case "reset": return .reset
            case "garbage": return .send(garbage)
            case "big": return .send(big)
            case "loop": return .send(Array("HTTP/1.1 302 Found\r\nLocation: \(target)\r\nContent-Length: 0\r\n\r\n".utf8))
            case "signed": return .send(target.hasSuffix(".minisig") ? signedSignature : signedDocument)
            default: return .send(missing)
            }
        }
    }

    static func url(_ server: LoopbackServer, _ kind: String, _ index: Int) -> String {
        "http://127.0.0.1:\(server.port)/\(kind)/\(index).json"
    }
}
