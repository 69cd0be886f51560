import NIOConcurrencyHelpers

/// One advisory read at a time in a daemon (issue 51): a read holds its
/// source's text and its parsed tree, up to 16 MiB and
/// `OSVRecord.maximumTreeBytes`, and three apps reading at once took three
/// times as much. A turn is taken before an API page is fetched or a
/// mirror's file is read, and given back when that work ends, on whatever
/// thread ends it. So a read that outlived its check's wait runs on to
/// its next deadline check alone: nothing starts beside it, the same
/// app's next read included (two reads left two threads at 180 % CPU for
/// minutes, issue 51). A task cancelled while it waits (the daemon
/// stopping) stops waiting.
final class ReadTurns: Sendable {
    private struct Line {
        var busy = false
        var waiting: [(number: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var taken: UInt64 = 0
    }

    /// A lock box over pthread, which ThreadSanitizer sees (see `AdvisoryCheck.reading`).
    private let line = NIOLockedValueBox(Line())

    /// Returns once the caller has the turn: true; false when its task
    /// was cancelled first, with no turn to give back.
    func take() async -> Bool {
        let number = line.withLockedValue { line in
            line.taken += 1
            return line.taken
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = line.withLockedValue { line in
                    // Cancelled before it could be found in line: it never waits.
                    if Task.isCancelled { return false }
                    guard line.busy else {
                        line.busy = true
                        return true
                    }
                    line.waiting.append((number, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let left = line.withLockedValue { line -> CheckedContinuation<Bool, Never>? in
                guard let index = line.waiting.firstIndex(where: { $0.number == number }) else { return nil }
                return line.waiting.remove(at: index).continuation
            }
            left?.resume(returning: false)
        }
    }

    /// How many wait for the turn now.
    var waitingCount: Int { line.withLockedValue { $0.waiting.count } }

    /// Hands the turn to the next in line, or frees it.
    func give() {
        let next = line.withLockedValue { line -> CheckedContinuation<Bool, Never>? in
            guard !line.waiting.isEmpty else {
                line.busy = false
                return nil
            }
            return line.waiting.removeFirst().continuation
        }
        next?.resume(returning: true)
    }

    /// Each daemon's, by its state folder: tests run many daemons in one process.
    private static let daemons = NIOLockedValueBox<[String: ReadTurns]>([:])

    static func of(daemon stateDirectory: String) -> ReadTurns {
        daemons.withLockedValue { daemons in
            if let turns = daemons[stateDirectory] { return turns }
            let turns = ReadTurns()
            daemons[stateDirectory] = turns
            return turns
        }
    }
}
