import Foundation
@testable import SSVCDaemon
import NIOConcurrencyHelpers

/// Servers in memory for the check service in virtual time: each URL
/// (its query aside) answers what the test set for it, or what `every`
/// says for its path, and every request is kept with the check time it
/// was made at. No socket and no thread: a fetch answers at once, so the
/// checking logic is tested alone, and real servers are left to the
/// tests of the fetcher and the process boundary.
final class MemoryTransport: HTTPTransport {
    enum Answer: Sendable {
        /// A 200 with this body, and an ETag a conditional request matches (304).
        case document(String, etag: String? = nil)
        /// An error status, with the `Retry-After` the fetcher would have read.
        case status(Int, retryAfter: Date? = nil)
        /// An error status with `Retry-After: seconds`, counted from the request.
        case retry(Int, after: TimeInterval)
    }

    /// The host of `url(_:)`'s URLs: no name any resolver knows.
    static let origin = "http://versions.test"

    struct Request: Sendable {
        let url: String
        let at: Date
        let post: String?
    }

    private struct Contents {
        var answers: [String: Answer] = [:]
        var every: @Sendable (String) -> Answer? = { _ in nil }
        var requests: [Request] = []
    }

    private let contents = NIOLockedValueBox(Contents())

    init() {}

    /// A server that answers each of its paths with what `every` says.
    init(every: @escaping @Sendable (String) -> Answer?) {
        contents.withLockedValue { $0.every = every }
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String { Self.origin + path }

    /// What `url` answers from now on; nil: it refuses connections.
    func answer(_ url: String, _ answer: Answer?) {
        contents.withLockedValue { $0.answers[url] = answer }
    }

    /// What every path without an answer of its own gets from now on.
    func answer(every: @escaping @Sendable (String) -> Answer?) {
        contents.withLockedValue { $0.every = every }
    }

    var requests: [Request] { contents.withLockedValue { $0.requests } }

    /// The check times `url` was asked at, as seconds after `epoch`.
    func times(_ url: String, since epoch: Date) -> [Double] {
        requests.filter { $0.url == url }.map { $0.at.timeIntervalSince(epoch) }
    }

    func fetch(
        _ url: String, etag: String?, options: FetchOptions, limit: BodyBound?, request: FetchRequest, now: Date
    ) async throws(FetchError) -> FetchOutcome {
        let bare = String(url.split(separator: "?", maxSplits: 1).first ?? "")
        let post = request.post.map { String(decoding: $0, as: UTF8.self) }
        let answer = contents.withLockedValue { contents in
            contents.requests.append(Request(url: bare, at: now, post: post))
            return contents.answers[bare] ?? (bare.hasPrefix(Self.origin) ? contents.every(String(bare.dropFirst(Self.origin.count))) : nil)
        }
        switch answer {
        case nil:
            throw FetchError("cannot connect to \(bare): connection refused")
        case let .status(code, retryAfter)?:
            throw FetchError("HTTP \(code)", retryAfter: retryAfter)
        case let .retry(code, seconds)?:
            throw FetchError("HTTP \(code)", retryAfter: now.addingTimeInterval(seconds))
        case let .document(text, tag)?:
            if let etag, etag == tag { return .notModified }
            let bytes = Array(text.utf8)
            if let limit, bytes.count > limit.bytes { throw FetchError("response of \(bytes.count) bytes is larger than \(limit)") }
            guard request.sink == nil else { throw FetchError("the transport in memory keeps no files") }
            return .body(bytes, etag: tag)
        }
    }

    func shutdown() async {}
}

/// Running versions in memory: what each check reads, set by the test;
/// a source given a version of its own (an installed version) reads that.
final class MemoryVersions: Sendable {
    private let current: NIOLockedValueBox<String>
    private let reads = NIOLockedValueBox(0)
    private let others = NIOLockedValueBox<[(source: VersionSource, version: String?)]>([])

    init(_ version: String) {
        current = NIOLockedValueBox(version)
    }

    func set(_ version: String) { current.withLockedValue { $0 = version } }

    /// What `source` reads from now on; nil: reading it fails.
    func set(_ version: String?, for source: VersionSource) {
        others.withLockedValue { others in
            others.removeAll { $0.source == source }
            others.append((source, version))
        }
    }

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    /// How many times a check read it.
    var count: Int { reads.withLockedValue { $0 } }

    func read(_ source: VersionSource, _ commands: RunningCommands) async throws -> String {
        if let other = others.withLockedValue({ $0.first { $0.source == source } }) {
            guard let version = other.version else { throw Unreadable(description: "\(source.shown): cannot be read") }
            return version
        }
        reads.withLockedValue { $0 += 1 }
        return current.withLockedValue { $0 }
    }
}
