@preconcurrency import Glibc
import NIOConcurrencyHelpers

/// How many control connections may be open, in all and per user, so that
/// no local user can take the descriptors the daemon needs for its own
/// files, or keep root from being answered.
///
/// Root is held to the total only, and even past it has `rootReserve`
/// connections more; every other user has at most `perUser`.
package final class ConnectionLimiter: Sendable {
    package let total: Int
    package let perUser: Int
    /// Root's connections past the total: 32, or half of what is kept for
    /// the daemon's own files when that is less.
    package let rootReserve: Int

    /// The fewest open files ssvcd starts with: a quarter for its own
    /// files, children and the journal, the rest for connections.
    package static let minimumDescriptors = 64

    private let open = NIOLockedValueBox<[UInt32: Int]>([:])

    /// `descriptors`: the soft limit on open files; a quarter of it, 256
    /// at least (half, below 512), is kept for files, children and the
    /// journal. The total is never more than is left: a budget below zero
    /// admits nobody, rather than a fixed few.
    package init(descriptors: Int, perUser: Int = 64) {
        let kept = max(descriptors / 4, min(256, descriptors / 2))
        total = max(min(descriptors - kept, 65_536), 0)
        rootReserve = min(32, kept / 2)
        self.perUser = perUser
    }

    /// Whether a connection of `uid` may be served; each admitted one must
    /// be released when it closes.
    package func admit(_ uid: UInt32) -> Bool {
        open.withLockedValue { open in
            let all = open.values.reduce(0, +)
            let mine = open[uid, default: 0]
            let allowed = uid == 0 ? all < total + rootReserve : all < total && mine < perUser
            if allowed { open[uid] = mine + 1 }
            return allowed
        }
    }

    package func release(_ uid: UInt32) {
        open.withLockedValue { open in
            let left = open[uid, default: 1] - 1
            open[uid] = left > 0 ? left : nil
        }
    }

    /// Raises this process's soft limit on open files to its hard limit,
    /// as systemd's own daemons do (the default soft limit, 1,024, exists
    /// for select(), which ssvcd does not use); the soft limit after it.
    package static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let current: UInt64 = UInt64(limit.rlim_cur)
        return Int(min(current, UInt64(Int32.max)))
    }
}
