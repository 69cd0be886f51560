import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SSVCCore

extension Fetcher {
    /// Errors as an operator reads them, not as a type name: one phrase of
    /// our own for each kind NIO and AsyncHTTPClient report, naming the
    /// host and port ("cannot connect to 127.0.0.1:8080: connection
    /// refused"). Through a proxy, a failure to reach it or a refusal of
    /// the tunnel names the proxy (its password hidden); other failures
    /// say they went through it.
    static func describe(_ error: any Error, url: String?, proxy: ProxyServer? = nil) -> String {
        if let proxy {
            if let error = error as? HTTPClientError, error == .proxyAuthenticationRequired {
                return "proxy \(proxy) refused the request: HTTP 407 Proxy Authentication Required (check the user and password in its URL)"
            }
            if let error = error as? HTTPClientError, error == .invalidProxyResponse {
                return "proxy \(proxy) refused the tunnel to \(url.flatMap { FetchTarget($0)?.authority } ?? "the server")"
            }
            if error is NIOConnectionError {
                return "cannot connect to proxy \(proxy): \(reason(error))"
            }
            return describe(error, url: url) + through(proxy)
        }
        let place = url.flatMap(FetchTarget.init).map(\.hostAndPort) ?? "the server"
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "cannot connect to \(place): timed out"
            case .readTimeout: return "the server at \(place) stopped answering"
            case .deadlineExceeded: return "the request to \(place) took longer than timeout-seconds"
            case .remoteConnectionClosed: return "the server at \(place) closed the connection before a whole response"
            case .cancelled: return "cancelled"
            default: return "the request to \(place) failed: \(error)"
            }
        }
        if let error = error as? NIOSSLError {
            let text = "\(error)"
            if text.firstRange(of: "CERTIFICATE_VERIFY_FAILED") != nil {
                return "TLS to \(place): the server's certificate is not trusted (certificate verify failed: unknown issuer, expired, or for another name)"
            }
            if text.firstRange(of: "WRONG_VERSION_NUMBER") != nil || text.firstRange(of: "PACKET_LENGTH_TOO_LONG") != nil {
                return "TLS to \(place): the server does not speak TLS there (plain http on an https port?)"
            }
            if case .uncleanShutdown = error { return "TLS to \(place): the server closed the connection without a TLS close" }
            return "TLS to \(place): \(text)"
        }
        if let error = error as? HTTPParserError {
            if case .headerOverflow = error { return "the server at \(place) sent more header bytes than allowed (80 KiB)" }
            return "the server at \(place) sent a malformed HTTP response (\(error))"
        }
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return "cannot resolve the host name of \(place)"
            }
            return "cannot connect to \(place): \(reason(error))"
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EADDRNOTAVAIL:
                return "cannot connect to \(place): \(reason(error))"
            case ECONNRESET: return "the server at \(place) reset the connection"
            case EPIPE: return "the server at \(place) closed the connection"
            default: return "\(place): \(reason(error))"
            }
        }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .eof, .outputClosed, .alreadyClosed:
                return "the server at \(place) closed the connection before a whole response"
            case .connectTimeout: return "cannot connect to \(place): timed out"
            default: break
            }
        }
        return "the request to \(place) failed: \(error)"
    }

    /// The first cause of a failed connection, or the error in words:
    /// "connection refused", "timed out", "connection reset".
    static func reason(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.first.map { reason($0.error) } ?? "\(error)"
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        if let error = error as? HTTPClientError, error == .connectTimeout { return "timed out" }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return "timed out"
            case .ioOnClosedChannel, .eof, .outputClosed: return "it closed the connection"
            default: break
            }
        }
        return "\(error)"
    }
}
