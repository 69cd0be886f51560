import FoundationEssentials
import SSVCCore
import SSVCSigning

/// Where a check's requests go: `Fetcher` (AsyncHTTPClient over the
/// network, and file URLs), or a test's server in memory
/// (`CheckService.Runtime.transport`), as NIO pairs `EmbeddedChannel` with
/// a real channel.
package protocol HTTPTransport: Sendable {
    /// One request and its answer: the body (within `limit`, or
    /// `max-response-bytes` when nil; into `request.sink` when it has one),
    /// 304, or an error naming what failed. `now`: the time a
    /// `Retry-After` counts from.
    func fetch(
        _ url: String, etag: String?, options: FetchOptions, limit: BodyBound?, request: FetchRequest, now: Date
    ) async throws(FetchError) -> FetchOutcome

    /// Releases its connections; no request follows.
    func shutdown() async
}

extension Fetcher: HTTPTransport {}

extension HTTPTransport {
    /// A document's minisign signature, fetched for a source at `origin`
    /// (the bearer token goes only to its host), at most a signature's
    /// size; `etag` asks conditionally. An error names the signature's URL.
    func signature(
        for requirement: SignatureRequirement, origin: String?, options: FetchOptions, etag: String? = nil, now: Date
    ) async throws(FetchError) -> FetchOutcome {
        do {
            return try await fetch(
                requirement.url, etag: etag, options: options.sending(to: requirement.url, tokenFor: origin), limit: .signature,
                request: FetchRequest(), now: now
            )
        } catch {
            throw FetchError("signature \(URLText.masked(requirement.url)): \(error.description)", retryAfter: error.retryAfter)
        }
    }
}
