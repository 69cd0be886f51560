import NIOConcurrencyHelpers
import SSVCPosix

/// Encoded `GetStatus` replies, so that a poller is answered without a trip
/// through the check service or the JSON encoder. The service invalidates it
/// whenever an app's state, plan or configuration changes; an entry also
/// expires after a second, because `stale` depends on the time.
package final class StatusCache: Sendable {
    private struct Entry {
        let reply: [UInt8]
        let expires: Double
    }

    private struct Contents {
        var generation = 0
        var entries: [String: Entry] = [:]
    }

    private let lifetime: Double
    private let contents = NIOLockedValueBox(Contents())

    package init(lifetime: Double = 1) {
        self.lifetime = lifetime
    }

    /// The key of `GetStatus(app)`; nil asks for every app.
    private static func key(_ app: String?) -> String { app.map { "app:" + $0 } ?? "all" }

    /// The generation to hand back to `store`: a reply computed before an
    /// invalidation is not kept.
    var generation: Int { contents.withLockedValue { $0.generation } }

    func reply(for app: String?) -> [UInt8]? {
        let now = MonotonicClock.seconds()
        return contents.withLockedValue { contents in
            guard let entry = contents.entries[Self.key(app)], entry.expires > now else { return nil }
            return entry.reply
        }
    }

    func store(_ reply: [UInt8], for app: String?, generation: Int) {
        let expires = MonotonicClock.seconds() + lifetime
        contents.withLockedValue { contents in
            guard contents.generation == generation else { return }
            contents.entries[Self.key(app)] = Entry(reply: reply, expires: expires)
        }
    }

    func invalidate() {
        contents.withLockedValue { contents in
            contents.generation += 1
            contents.entries.removeAll(keepingCapacity: true)
        }
    }
}
