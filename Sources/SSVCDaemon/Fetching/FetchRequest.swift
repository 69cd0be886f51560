import FoundationEssentials
import SSVCCore

/// What a fetch brought back.
package enum FetchOutcome: Sendable, Equatable {
    /// A 200 response, read whole, with its `ETag` when it had one (and,
    /// when it went to a `FetchSink`, its `Last-Modified`, the body empty).
    case body([UInt8], etag: String?, lastModified: String? = nil)
    /// 304: what we have is still current.
    case notModified
}

/// A request other than a plain GET whose body is kept in memory: a POST
/// with a JSON body (the OSV API), or a body written to a file as it
/// streams (an OSV export of hundreds of megabytes).
package struct FetchRequest: Sendable {
    /// Sent as a POST with `Content-Type: application/json`.
    package var post: [UInt8]?
    /// The body goes to this open file, not to memory.
    package var sink: Int32?
    /// Sent as `If-Modified-Since`.
    package var lastModified: String?
    /// How much longer than `timeout-seconds` the whole exchange may take
    /// (a large export); each read still waits at most `timeout-seconds`.
    package var deadlineFactor: Int

    package init(post: [UInt8]? = nil, sink: Int32? = nil, lastModified: String? = nil, deadlineFactor: Int = 1) {
        self.post = post
        self.sink = sink
        self.lastModified = lastModified
        self.deadlineFactor = deadlineFactor
    }
}

/// The most a body may have, and what sets it, for messages:
/// "max-response-bytes (1048576)".
package struct BodyBound: Sendable, CustomStringConvertible {
    package let bytes: Int
    package let description: String

    /// A minisign signature file: 4 KiB, as the format allows.
    package static let signature = BodyBound(bytes: Minisign.maximumSignatureBytes, description: "the \(Minisign.maximumSignatureBytes) bytes a signature may have")

    static func maxResponseBytes(_ bytes: Int) -> BodyBound {
        BodyBound(bytes: bytes, description: "max-response-bytes (\(bytes))")
    }
}

/// Why a fetch failed, in words for the journal, and whether the server
/// asked for a pause (`Retry-After` on 429 or 503).
package struct FetchError: Error, Equatable, CustomStringConvertible {
    package let description: String
    package let retryAfter: Date?

    init(_ description: String, retryAfter: Date? = nil) {
        self.description = description
        self.retryAfter = retryAfter
    }
}
