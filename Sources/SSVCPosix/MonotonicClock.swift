@preconcurrency import Glibc

/// Seconds on CLOCK_MONOTONIC, for time limits and lifetimes that must not
/// move when the wall clock is set.
public enum MonotonicClock {
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
