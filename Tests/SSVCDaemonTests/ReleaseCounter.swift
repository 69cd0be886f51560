import Dispatch
import Foundation
import SSVCPosix
import Synchronization
import SSVCTestSupport
import Testing
@testable import SSVCDaemon

/// Counts the releases an `IdleMemoryReleaser` makes, instead of making
/// them. The releaser's thread lives as long as the test process, and so,
/// retained for it, does the counter.
final class ReleaseCounter: Sendable {
    let count = Atomic<Int>(0)
    /// When the last release ran, in `DispatchTime` nanoseconds (the
    /// releaser's own clock, CLOCK_MONOTONIC).
    let lastRelease = Atomic<UInt64>(0)
    var value: Int { count.load(ordering: .relaxed) }

    func releaser(quiet: Duration) -> IdleMemoryReleaser {
        IdleMemoryReleaser(quietPeriod: quiet, release: { context in
            let counter = Unmanaged<ReleaseCounter>.fromOpaque(context!).takeUnretainedValue()
            counter.lastRelease.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            counter.count.wrappingAdd(1, ordering: .relaxed)
        }, context: Unmanaged.passRetained(self).toOpaque())
    }
}
