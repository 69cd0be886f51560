public import FoundationEssentials

/// What one check came to, as an app's state records it.
public enum CheckOutcome: Sendable {
    /// An accepted response: a new body, or (on 304 Not Modified) the stored
    /// one decided on again. `fetched`: a request went out.
    case success(Evaluation, body: String, etag: String?, fetched: Bool)
    /// No accepted response: the version could not be read, the server
    /// failed or was unreachable, or its response was rejected.
    /// `retryAfter` is the server's Retry-After.
    case failure(String, retryAfter: Date?, fetched: Bool)
}
