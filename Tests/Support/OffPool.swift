import Foundation

/// Runs `body`, which blocks the thread it runs on (waits for a process,
/// reads a socket with a timeout, sleeps), on a thread of its own, and
/// awaits its result.
///
/// This is the one place in the tests where a thread may block. Swift's
/// cooperative pool has one thread per core: a test that blocks one of them
/// (two, on 2 cores) stops every actor and every `await` in the process, the
/// virtual-time suites' included (issue 49). `make test` fails when a
/// blocking call appears anywhere else in `Tests/` (`Tests/blocking-calls`).
public func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// `offPool` for a body that cannot fail.
public func offPool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// A value handed to `offPool` that is not `Sendable`: the caller awaits the
/// body, so only one thread uses it at a time.
public struct Handed<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// Sleeps for `seconds` without holding a thread.
public func pause(_ seconds: Double) async {
    try? await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded(.up))))
}

/// Asks `condition` every `interval` seconds until it holds or `seconds`
/// pass; its last answer. For effects that land a little later than the
/// call that caused them (a daemon's reply, a journal entry, a restart).
/// The wait between two asks is a `Task.sleep`, never a blocked thread.
public func eventually(
    within seconds: Double, every interval: Double = 0.1, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        await pause(interval)
    }
    return try await condition()
}

/// Runs `body`, then `cleanup` however `body` ended: a `defer` that can
/// await, which Swift 6.3 does not have.
public func withCleanup<Value>(_ body: () async throws -> Value, cleanup: () async -> Void) async throws -> Value {
    do {
        let value = try await body()
        await cleanup()
        return value
    } catch {
        await cleanup()
        throw error
    }
}
