import FoundationEssentials

/// What one check came to, as an app's state records it.
package enum CheckOutcome: Sendable {
    /// An accepted response: a new body, or (on 304 Not Modified) the stored
    /// one decided on again. `fetched`: a request went out. `signature`: the
    /// verified signature, when the app asks for one.
    case success(Evaluation, body: String, etag: String?, fetched: Bool, signature: AcceptedSignature? = nil)
    /// No accepted response: the version could not be read, the server
    /// failed or was unreachable, or its response or signature was rejected.
    /// `retryAfter` is the server's Retry-After.
    case failure(String, retryAfter: Date?, fetched: Bool, kind: FailureKind = .check)

    /// What failed, for the journal's MESSAGE_ID.
    package enum FailureKind: Sendable, Equatable {
        case check
        /// The signature was missing, malformed, wrong, expired or older
        /// than the one accepted before.
        case signature
    }
}
