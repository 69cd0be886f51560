import CMemory

/// Gives memory back to the system once the daemon has been quiet for a
/// while: the heap's free pages (`malloc_trim`) and the code and constant
/// pages of the executable and its libraries.
///
/// Nine tenths of an idle daemon's resident set are clean code pages,
/// mapped by the kernel's fault-around near every page a check or a call
/// touched. Dropping them (`ssvc_release_code_pages`) leaves them in the
/// page cache: the next check maps back what it uses with minor faults and
/// no reads from disk.
///
/// Work calls `noteActivity()`, which stamps the time. A thread of its own
/// (C, in `CMemory`) sleeps on an eventfd until the first work after a
/// release, then until `quietPeriod` after the last work, and releases. No
/// timer runs while the daemon is idle, so nothing wakes it; and as the
/// thread runs only a few lines of libc after a release before it blocks
/// again, the release is the last thing the daemon does. On a Dispatch
/// queue the worker would wake once more to exit, and NIO's loop would map
/// back 1.3 MiB of its own code on its way back to `epoll_wait`.
package final class IdleMemoryReleaser: Sendable {
    /// How long after the last work the memory goes back.
    package static let defaultQuietPeriod: Duration = .seconds(10)

    /// The C side's state; it lives as long as the process, like its thread.
    private nonisolated(unsafe) let releaser: OpaquePointer?

    /// `release` runs on the releaser's thread with `context`; by default
    /// it is `releaseNow`. Without a thread (the system refused one), work
    /// is noted and nothing is released.
    package init(
        quietPeriod: Duration = defaultQuietPeriod,
        release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { _ in IdleMemoryReleaser.releaseNow() },
        context: UnsafeMutableRawPointer? = nil
    ) {
        let (seconds, attoseconds) = quietPeriod.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        releaser = ssvc_idle_releaser_start(nanoseconds, release, context)
    }

    /// Cheap enough for every control call: a clock read, an atomic store,
    /// and a write to the eventfd only when the thread is not counting down.
    package func noteActivity() {
        if let releaser { ssvc_idle_releaser_note(releaser) }
    }

    /// One malloc arena for the whole process, unless the environment
    /// sets glibc's (`MALLOC_ARENA_MAX`, `GLIBC_TUNABLES`). glibc gives
    /// each thread that allocates while the others hold the lock an arena
    /// of its own, up to 8 a core, and an arena's free pages serve only
    /// the threads on it: the daemon's resident set rose by about 4 MiB
    /// with each Dispatch worker that came under load (the soak: 42.7 to
    /// 50.2 MiB over 10 minutes). Its few threads rarely allocate at once;
    /// with one arena the soak holds at 34 MiB and GetStatus p99 does not
    /// move (docs/testing.md). Called first, before any thread starts.
    package static func limitArenas(environment: [String: String]) {
        guard environment["MALLOC_ARENA_MAX"] == nil, environment["GLIBC_TUNABLES"] == nil else { return }
        _ = ssvc_limit_arenas(1)
    }

    /// Trims the heap, then drops the read-only pages of every loaded
    /// object; returns the bytes of address range advised.
    @discardableResult
    package static func releaseNow() -> Int {
        _ = ssvc_trim_heap()
        return ssvc_release_code_pages()
    }
}
