import FoundationEssentials
import SSVCCore
import SSVCSigning

extension Fetcher {
    /// A document's minisign signature, fetched for a source at `origin`
    /// (the bearer token goes only to its host), at most a signature's
    /// size; `etag` asks conditionally. An error names the signature's URL.
    func signature(
        for requirement: SignatureRequirement, origin: String?, options: FetchOptions, etag: String? = nil, now: Date
    ) async throws(FetchError) -> FetchOutcome {
        do {
            return try await fetch(
                requirement.url, etag: etag, options: options.sending(to: requirement.url, tokenFor: origin), limit: .signature, now: now
            )
        } catch {
            throw FetchError("signature \(URLText.masked(requirement.url)): \(error.description)", retryAfter: error.retryAfter)
        }
    }
}
