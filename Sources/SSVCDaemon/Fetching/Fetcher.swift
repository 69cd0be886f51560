import AsyncHTTPClient
import Dispatch
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SSVCCore
import SSVCPosix

/// What a fetch brought back.
public enum FetchOutcome: Sendable, Equatable {
    /// A 200 response, read whole, with its `ETag` when it had one.
    case body([UInt8], etag: String?)
    /// 304: what we have is still current.
    case notModified
}

/// Why a fetch failed, in words for the journal, and whether the server
/// asked for a pause (`Retry-After` on 429 or 503).
public struct FetchError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public let retryAfter: Date?

    init(_ description: String, retryAfter: Date? = nil) {
        self.description = description
        self.retryAfter = retryAfter
    }
}

/// Fetches version documents over https, http or from a file.
///
/// Redirects are followed by hand, at most five, never from https to http
/// (a downgrade would let anyone on the path answer). The body is counted
/// while it streams and the request abandoned past `max-response-bytes`, so a
/// huge answer costs no memory.
public final class Fetcher: Sendable {
    public static let maximumRedirects = 5

    private let client: HTTPClient
    private let timeout: TimeAmount
    private let maxBytes: Int

    public init(settings: DaemonSettings) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile {
            tls.additionalTrustRoots = [.file(caFile)]
        }
        let timeout = TimeAmount.milliseconds(Int64(settings.timeoutSeconds * 1000))
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: timeout),
            decompression: .disabled
        )
        configuration.connectionPool.idleTimeout = .seconds(5)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.timeout = timeout
        self.maxBytes = settings.maxResponseBytes
    }

    /// Closes the client's connections. Its completion runs on a serial
    /// queue of ours: `HTTPClient.shutdown()` would use a global queue, and
    /// with it start libdispatch's once-a-second worker-pool monitor.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            client.shutdown(queue: Self.shutdownQueue) { _ in continuation.resume() }
        }
    }

    private static let shutdownQueue = DispatchQueue(label: "io.ssvc.http-shutdown")

    public func fetch(_ url: String, etag: String?) async throws(FetchError) -> FetchOutcome {
        if url.hasPrefix("file://") { return try readFile(url) }
        let deadline = NIODeadline.now() + timeout
        var current = url
        var visited: Set<String> = [url]
        for _ in 0...Self.maximumRedirects {
            var request = HTTPClientRequest(url: current)
            request.method = .GET
            request.headers.add(name: "User-Agent", value: DaemonVersion.userAgent)
            request.headers.add(name: "Accept", value: "application/json")
            if let etag { request.headers.add(name: "If-None-Match", value: etag) }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline)
            } catch {
                throw FetchError(Self.describe(error, url: current))
            }
            switch response.status.code {
            case 200:
                let body = try await collect(response, deadline: deadline)
                return .body(body, etag: response.headers.first(name: "ETag"))
            case 304 where etag != nil:
                return .notModified
            case 301, 302, 303, 307, 308:
                guard let location = response.headers.first(name: "Location"),
                      let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString
                else { throw FetchError("HTTP \(response.status.code) redirect without a usable Location") }
                if current.hasPrefix("https://") && !next.hasPrefix("https://") {
                    throw FetchError("refused a redirect from https to \(next)")
                }
                guard next.hasPrefix("https://") || next.hasPrefix("http://") else {
                    throw FetchError("refused a redirect to \(next)")
                }
                guard visited.insert(next).inserted else { throw FetchError("redirect loop at \(next)") }
                current = next
            case 429, 503:
                let retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.parse($0, now: Date()) }
                throw FetchError("HTTP \(response.status.code) \(response.status.reasonPhrase)", retryAfter: retryAfter)
            default:
                throw FetchError("HTTP \(response.status.code) \(response.status.reasonPhrase)")
            }
        }
        throw FetchError("more than \(Self.maximumRedirects) redirects")
    }

    private func collect(_ response: HTTPClientResponse, deadline: NIODeadline) async throws(FetchError) -> [UInt8] {
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            throw FetchError("response of \(length) bytes is larger than max-response-bytes (\(maxBytes))")
        }
        var body: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maxBytes else {
                    throw FetchError("response is larger than max-response-bytes (\(maxBytes))")
                }
                body.append(contentsOf: chunk.readableBytesView)
                if NIODeadline.now() > deadline { throw HTTPClientError.deadlineExceeded }
            }
        } catch let error as FetchError {
            throw error
        } catch {
            throw FetchError("reading the response: \(Self.describe(error, url: nil))")
        }
        return body
    }

    private func readFile(_ url: String) throws(FetchError) -> FetchOutcome {
        guard let path = URL(string: url)?.path, !path.isEmpty else { throw FetchError("'\(url)' is not a file URL") }
        do {
            return .body(try BoundedReader.read(path: path, limit: maxBytes), etag: nil)
        } catch {
            throw FetchError(error.description)
        }
    }

    /// Errors as an operator reads them, not as a type name.
    static func describe(_ error: any Error, url: String?) -> String {
        let target = url.flatMap { URL(string: $0)?.host }.map { " to \($0)" } ?? ""
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connection\(target) timed out"
            case .readTimeout: return "the server\(target) stopped answering (nothing within timeout-seconds)"
            case .deadlineExceeded: return "the request\(target) took longer than timeout-seconds"
            case .remoteConnectionClosed: return "the server\(target) closed the connection"
            case .cancelled: return "cancelled"
            default: return "\(error)"
            }
        }
        if let error = error as? NIOSSLError {
            let text = "\(error)"
            if text.firstRange(of: "CERTIFICATE_VERIFY_FAILED") != nil {
                return "TLS\(target): the server's certificate is not trusted (certificate verify failed)"
            }
            return "TLS\(target): \(text)"
        }
        if let error = error as? NIOConnectionError {
            let reasons = error.connectionErrors.map { "\($0.error)" }
            return "cannot connect\(target): \(reasons.first ?? "\(error)")"
        }
        if let error = error as? IOError {
            return "\(error.description)\(target)"
        }
        return "\(error)"
    }
}
