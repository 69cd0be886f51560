import Foundation
import Testing

/// At most a few integration tests at a time, each with its daemons, servers
/// and clients: the tests await rather than block, so Swift Testing would
/// otherwise start all of them at once, hundreds of processes on two cores,
/// and every timeout in them would measure the crowd. The number is
/// `SSVC_TEST_SLOTS`, else twice the cores (docs/testing.md).
struct ProcessSlots: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    /// Each case of each test takes a slot; a suite itself takes none.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // A nested suite that names the trait again does not take a second slot.
        if Self.held { return try await function() }
        await SlotPool.shared.acquire()
        defer { SlotPool.shared.release() }
        let started = ContinuousClock.now
        defer { Self.note(test, testCase, started) }
        try await Self.$held.withValue(true) { try await function() }
    }

    /// With `SSVC_TEST_TIMES=FILE`, each test's time in its slot is appended
    /// to FILE ("seconds name"): the time it took, not its wait for a slot.
    private static func note(_ test: Test, _ testCase: Test.Case?, _ started: ContinuousClock.Instant) {
        guard let path = ProcessInfo.processInfo.environment["SSVC_TEST_TIMES"], !path.isEmpty else { return }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let line = String(format: "%.2f", seconds) + " \(test.displayName ?? test.name)\n"
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        _ = line.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count - 1) }  // one write: appends do not interleave
        close(descriptor)
    }

    @TaskLocal static var held = false
}

extension Trait where Self == ProcessSlots {
    /// One of the few integration tests that run at once.
    static var processSlot: Self { ProcessSlots() }
}

/// The slots: a counting semaphore that suspends, never blocks.
final class SlotPool: @unchecked Sendable {
    static let shared = SlotPool(
        count: ProcessInfo.processInfo.environment["SSVC_TEST_SLOTS"].flatMap { Int($0) }.map { max(1, $0) }
            ?? 2 * ProcessInfo.processInfo.activeProcessorCount
    )

    private let lock = NSLock()
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if free > 0 {
                free -= 1
                lock.unlock()
                continuation.resume()
            } else {
                waiting.append(continuation)
                lock.unlock()
            }
        }
    }

    func release() {
        lock.lock()
        if waiting.isEmpty {
            free += 1
            lock.unlock()
        } else {
            let next = waiting.removeFirst()
            lock.unlock()
            next.resume()
        }
    }
}
