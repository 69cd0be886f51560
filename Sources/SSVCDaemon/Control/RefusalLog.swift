import NIOConcurrencyHelpers
import SSVCCore
import SSVCPosix

/// How many lines about refused or broken connections each local user may
/// cause: every user can reach the socket, and one line per malformed call
/// would let anyone fill the disk through the journal and push the
/// daemon's own entries under journald's rate limit. Per uid, the first
/// `linesPerInterval` lines of each interval are written; the rest are
/// counted and the count said once, with the first line of a later interval.
final class RefusalLog: Sendable {
    static let linesPerInterval = 5
    static let intervalSeconds = 60.0
    /// The most bytes of a peer's text quoted in one line.
    static let quotedBytes = 256
    /// Users remembered at most; past it, those whose interval has ended go.
    static let rememberedUsers = 1_024

    private struct Window {
        var start: Double
        var lines: Int
        var suppressed: Int
    }

    private let windows = NIOLockedValueBox<[UInt32: Window]>([:])
    private let clock: @Sendable () -> Double
    /// Lines per user per interval: `linesPerInterval` for refusals.
    private let budget: Int

    init(linesPerInterval: Int = RefusalLog.linesPerInterval, clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        budget = linesPerInterval
        self.clock = clock
    }

    /// What to write for one refusal of `uid`'s, `reason` cut to
    /// `quotedBytes`; nil when its interval's lines are spent. The line
    /// after a suppressed run says how many were left out.
    func line(uid: UInt32?, _ reason: String, quoting: Bool = true) -> String? {
        let key = uid ?? UInt32.max
        let now = clock()
        let (write, skipped, last) = windows.withLockedValue { windows -> (Bool, Int, Bool) in
            if windows.count >= Self.rememberedUsers {
                windows = windows.filter { now - $0.value.start < Self.intervalSeconds }
            }
            var window = windows[key] ?? Window(start: now, lines: 0, suppressed: 0)
            var skipped = 0
            if now - window.start >= Self.intervalSeconds {
                skipped = window.suppressed
                window = Window(start: now, lines: 0, suppressed: 0)
            }
            let write = window.lines < self.budget
            if write { window.lines += 1 } else { window.suppressed += 1 }
            windows[key] = window
            return (write, skipped, window.lines == self.budget)
        }
        guard write else { return nil }
        let cut = quoting ? DisplayText.cut(reason, bytes: Self.quotedBytes) : reason
        let note = skipped > 0 ? " (\(skipped) more from this user in the interval before were not logged)" : ""
        let limit = last ? " (the last line from this user for \(Int(Self.intervalSeconds)) s)" : ""
        return cut + note + limit
    }
}
