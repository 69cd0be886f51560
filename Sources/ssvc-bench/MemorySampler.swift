@preconcurrency import Glibc
import Synchronization

/// Reads a process's RSS and anonymous RSS from /proc/PID/status every
/// 10 ms on a thread of its own while the caller waits on something else
/// (a Varlink call), and keeps the highest of each: VmHWM gives the peak
/// of the whole resident set only.
final class MemorySampler: @unchecked Sendable {
    private let pid: pid_t
    private let stopping = Atomic<Bool>(false)
    private var thread = pthread_t()
    /// Written by the sampling thread only, read after it is joined.
    private var peakRSS = 0
    private var peakAnonymous = 0

    init(pid: pid_t) throws(BenchError) {
        self.pid = pid
        let box = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&thread, nil, { raw in
            let sampler = Unmanaged<MemorySampler>.fromOpaque(raw!).takeRetainedValue()
            sampler.sample()
            return nil
        }, box) == 0 else {
            Unmanaged<MemorySampler>.fromOpaque(box).release()
            throw BenchError("cannot start a sampling thread")
        }
    }

    /// Stops sampling; the highest RSS and anonymous RSS seen, in KiB (not
    /// necessarily at the same moment).
    func stop() -> (rss: Int, anonymous: Int) {
        stopping.store(true, ordering: .relaxed)
        pthread_join(thread, nil)
        return (peakRSS, peakAnonymous)
    }

    private func sample() {
        while !stopping.load(ordering: .relaxed) {
            peakRSS = max(peakRSS, ProcFile.statusNumber(pid, "VmRSS") ?? 0)
            peakAnonymous = max(peakAnonymous, ProcFile.statusNumber(pid, "RssAnon") ?? 0)
            usleep(10_000)
        }
    }
}
