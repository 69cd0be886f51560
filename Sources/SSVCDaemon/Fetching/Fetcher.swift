import AsyncHTTPClient
import Dispatch
import FoundationEssentials
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import SSVCCore
import SSVCPosix

/// Fetches version documents over https, http or from a file.
///
/// Redirects are followed by hand, at most five, never from https to http
/// (a downgrade would let anyone on the path answer). Each hop chooses its
/// proxy again (a redirect may leave the no-proxy list or enter it). The
/// body is counted while it streams and the request abandoned past
/// `max-response-bytes`, so a huge answer costs no memory.
package final class Fetcher: Sendable {
    package static let maximumRedirects = 5

    /// One HTTP client per proxy and client certificate in use: each holds
    /// its own connection pool and TLS context.
    private struct ClientKey: Hashable {
        var proxy: ProxyServer?
        var identity: ClientIdentity?
    }

    private let clients: NIOLockedValueBox<[ClientKey: HTTPClient]>
    /// `ca-file`'s certificates, read here (bounded, a regular file)
    /// rather than by the TLS library, which would wait on a FIFO for ever.
    private let caRoots: Result<[NIOSSLCertificate], FetchError>?
    private let timeout: TimeAmount
    /// "timeout-seconds (30 s)", for messages.
    let timeoutText: String
    private let timeoutSeconds: Double
    private let responseLimit: BodyBound
    private let environment: [String: String]

    /// `environment` gives `CREDENTIALS_DIRECTORY` for tokens.
    package init(settings: DaemonSettings, environment: [String: String]) {
        caRoots = settings.caFile.map { file in
            Result { () throws(FetchError) in
                do {
                    return try Self.certificates(file)
                } catch {
                    throw FetchError("ca-file: \(error)")
                }
            }
        }
        // Within DaemonKeys.timeoutSeconds.range: no overflow here.
        timeout = TimeAmount.milliseconds(Int64(settings.timeoutSeconds * 1000))
        timeoutText = Self.limitText(timeoutSeconds: settings.timeoutSeconds, factor: 1)
        timeoutSeconds = settings.timeoutSeconds
        responseLimit = .maxResponseBytes(settings.maxResponseBytes)
        self.environment = environment
        // Each client is made at its first request: after READY=1 (0.7 ms
        // of a start, issue 55), and never for a daemon of advisory
        // folders alone.
        clients = NIOLockedValueBox([:])
    }

    private func client(for key: ClientKey) -> HTTPClient {
        clients.withLockedValue { clients in
            if let existing = clients[key] { return existing }
            var tls = TLSConfiguration.makeClientConfiguration()
            if case let .success(roots)? = caRoots { tls.additionalTrustRoots = [.certificates(roots)] }
            key.identity?.apply(to: &tls)
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls,
                redirectConfiguration: .disallow,
                timeout: .init(connect: timeout, read: timeout),
                decompression: .disabled
            )
            configuration.connectionPool.idleTimeout = .seconds(5)
            // A connection that cannot be made fails the check now, with its
            // reason, instead of being retried until timeout-seconds: the
            // schedule's retries are the daemon's.
            configuration.connectionPool.retryConnectionEstablishment = false
            if let proxy = key.proxy {
                configuration.proxy = .server(
                    host: proxy.host, port: proxy.port,
                    authorization: proxy.user.map { .basic(username: $0, password: proxy.password ?? "") }
                )
            }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    /// Closes the clients' connections. Completions run on a serial queue
    /// of ours: `HTTPClient.shutdown()` would use a global queue, and with
    /// it start libdispatch's once-a-second worker-pool monitor.
    package func shutdown() async {
        let all = clients.withLockedValue { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in all {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                client.shutdown(queue: Self.shutdownQueue) { _ in continuation.resume() }
            }
        }
    }

    /// The most a PEM file (`ca-file`, a client certificate or its key) may hold.
    static let maximumPEMBytes = 1 << 20

    /// The PEM certificates of `file`, which must be a regular file of at
    /// most 1 MiB holding at least one.
    static func certificates(_ file: String) throws -> [NIOSSLCertificate] {
        let certificates = try NIOSSLCertificate.fromPEMBytes(try BoundedReader.read(path: file, limit: maximumPEMBytes))
        guard !certificates.isEmpty else { throw NoCertificate(description: "\(file) holds no PEM certificate") }
        return certificates
    }

    /// 30 s, 0.5 s.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The limit a request's deadline stands for, for messages: a mirror's
    /// download has `factor` times timeout-seconds, and says so.
    func limitText(_ factor: Int) -> String {
        Self.limitText(timeoutSeconds: timeoutSeconds, factor: factor)
    }

    static func limitText(timeoutSeconds: Double, factor: Int) -> String {
        factor > 1
            ? "\(factor) times timeout-seconds (\(seconds(timeoutSeconds * Double(factor))))" : "timeout-seconds (\(seconds(timeoutSeconds)))"
    }

    struct NoCertificate: Error, CustomStringConvertible {
        let description: String
    }

    private static let shutdownQueue = DispatchQueue(label: "io.ssvc.http-shutdown")

    /// `limit`: the most a body may have, `max-response-bytes` unless told;
    /// `now`: the time a `Retry-After` or a rate limit's reset counts from.
    package func fetch(
        _ url: String, etag: String?, options: FetchOptions = FetchOptions(), limit: BodyBound? = nil,
        request: FetchRequest = FetchRequest(), now: Date
    ) async throws(FetchError) -> FetchOutcome {
        let limit = limit ?? responseLimit
        if url.lowercased().hasPrefix("file://") { return try readFile(url, limit: limit) }
        let deadline = NIODeadline.now() + timeout * Int64(max(1, request.deadlineFactor))
        let origin = FetchTarget(url)
        // Read once per check, before the first request: a token that
        // cannot be read fails the check without a request.
        let token = try options.bearerToken.map { source throws(FetchError) in try source.bearerToken(environment: environment) }
        var current = url
        var visited: Set<String> = [url]
        for _ in 0...Self.maximumRedirects {
            guard let target = FetchTarget(current) else {
                throw FetchError("cannot fetch '\(URLText.masked(current))': \(FetchTarget.problem(with: current) ?? "not a URL")")
            }
            var headers = HTTPHeaders()
            headers.add(name: "User-Agent", value: DaemonVersion.userAgent)
            headers.add(name: "Accept", value: "application/json")
            if let etag { headers.add(name: "If-None-Match", value: etag) }
            if let since = request.lastModified { headers.add(name: "If-Modified-Since", value: since) }
            for header in options.headers { headers.replaceOrAdd(name: header.name, value: header.value) }
            if target.scheme == "https", case let .failure(error)? = caRoots { throw error }
            let proxy = options.proxy.server(scheme: target.scheme, host: target.host)
            // The token goes to the configured host only, and only where
            // nobody can read it on the way: over https, or to loopback
            // without a proxy between.
            if let token, target.host == origin?.host {
                if let proxy, target.scheme != "https" {
                    throw FetchError("bearer token: not sent in clear through proxy \(proxy); set proxy = \"none\" for this app or list \(target.host) in no-proxy")
                }
                if target.scheme == "https" || target.isLoopback {
                    headers.add(name: "Authorization", value: "Bearer \(token)")
                }
            }
            let reply = try await exchange(
                current, target: target, headers: headers, proxy: proxy, identity: options.clientIdentity, deadline: deadline, limit: limit,
                request: request
            )
            let rateLimited = reply.headers.first(name: "X-RateLimit-Remaining")?.trimming(" \t") == "0"
            switch reply.status.code {
            case 200:
                return .body(reply.body, etag: reply.headers.first(name: "ETag"), lastModified: reply.headers.first(name: "Last-Modified"))
            case 304 where etag != nil || request.lastModified != nil:
                return .notModified
            case 301, 302, 303, 307, 308:
                guard let location = reply.headers.first(name: "Location"),
                      let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString
                else { throw FetchError("HTTP \(reply.status.code) redirect without a usable Location") }
                // Schemes compare without case: HTTP://host is http://host.
                if let problem = FetchTarget.problem(with: next) {
                    throw FetchError("refused a redirect to \(URLText.masked(next)): \(problem)")
                }
                if target.scheme == "https" && FetchTarget(next)?.scheme != "https" {
                    throw FetchError("refused a redirect from https to \(URLText.masked(next))")
                }
                guard visited.insert(next).inserted else { throw FetchError("redirect loop at \(URLText.masked(next))") }
                current = next
            case 407 where proxy != nil:
                throw FetchError("proxy \(proxy!) refused the request: HTTP 407 Proxy Authentication Required (check the user and password in its URL)")
            case 403 where rateLimited, 429 where rateLimited:
                // GitHub's rate limit: its reset time is the Retry-After.
                let reset = reply.headers.first(name: "X-RateLimit-Reset").flatMap { RetryAfter.rateLimitReset($0, now: now) }
                let retryAfter = reply.headers.first(name: "Retry-After").flatMap { RetryAfter.parse($0, now: now) } ?? reset
                let until = retryAfter.map { " until \(RFC3339.format($0))" } ?? ""
                throw FetchError(
                    "HTTP \(reply.status.code) \(reply.status.reasonPhrase): rate limit exhausted\(until)\(Self.through(proxy))", retryAfter: retryAfter
                )
            case 429, 503:
                let retryAfter = reply.headers.first(name: "Retry-After").flatMap { RetryAfter.parse($0, now: now) }
                throw FetchError("HTTP \(reply.status.code) \(reply.status.reasonPhrase)\(Self.through(proxy))", retryAfter: retryAfter)
            default:
                throw FetchError("HTTP \(reply.status.code) \(reply.status.reasonPhrase)\(Self.through(proxy))")
            }
        }
        throw FetchError("more than \(Self.maximumRedirects) redirects")
    }

    /// One request and its answer, direct, tunnelled through a proxy
    /// (https), or in absolute form to it (http).
    private func exchange(
        _ url: String, target: FetchTarget, headers: HTTPHeaders, proxy: ProxyServer?, identity: ClientIdentity?, deadline: NIODeadline,
        limit: BodyBound, request options: FetchRequest
    ) async throws(FetchError) -> HTTPReply {
        if let proxy, target.scheme == "http", options.post != nil || options.sink != nil {
            // The absolute-form path sends GETs read into memory only.
            throw FetchError("\(options.post != nil ? "a query" : "a download to a file") over http through proxy \(proxy): use https")
        }
        if let proxy, target.scheme == "http" {
            do {
                return try await AbsoluteFormRequest.get(
                    url, target: target, headers: headers, proxy: proxy, connectTimeout: timeout, deadline: deadline, maxBytes: limit.bytes
                )
            } catch {
                switch error {
                case let .connect(cause): throw FetchError("cannot connect to proxy \(proxy): \(Self.reason(cause))")
                case let .exchange(cause): throw FetchError("proxy \(proxy): \(Self.reason(cause)) before a whole response")
                case .timedOut: throw FetchError("the request to \(target.hostAndPort) took longer than \(limitText(options.deadlineFactor))\(Self.through(proxy))")
                case let .tooLarge(length?): throw FetchError("response of \(length) bytes is larger than \(limit)")
                case .tooLarge(nil): throw FetchError("response is larger than \(limit)")
                case .closedEarly: throw FetchError("proxy \(proxy) closed the connection before a whole response")
                }
            }
        }
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers = headers
        if let post = options.post {
            request.method = .POST
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            request.body = .bytes(post)
        }
        let response: HTTPClientResponse
        do {
            response = try await client(for: ClientKey(proxy: proxy, identity: identity)).execute(request, deadline: deadline)
        } catch {
            // Past the deadline, whatever timed out first (a server that
            // sends a byte now and then resets the read timeout each time).
            if NIODeadline.now() >= deadline {
                throw FetchError("the request to \(target.hostAndPort) took longer than \(limitText(options.deadlineFactor))\(Self.through(proxy))")
            }
            throw FetchError(Self.describe(error, url: url, proxy: proxy))
        }
        let body = response.status.code == 200 ? try await collect(response, deadline: deadline, limit: limit, sink: options.sink, limitText: limitText(options.deadlineFactor)) : []
        return HTTPReply(status: response.status, headers: response.headers, body: body)
    }
}
