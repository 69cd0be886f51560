@preconcurrency import Glibc

/// A few threads that inflate a batch of loaded entries beside the
/// caller's own, for an export's pass (issue 55): entries are independent,
/// and inflating them is most of a pass. Plain POSIX threads that live for
/// one archive: no Dispatch queue, whose worker pool would wake the daemon
/// every second for the rest of its life. The caller's thread takes
/// entries too, so no helpers (one core) is inflating in turn.
final class InflateCrew: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let finished = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var threads: [pthread_t] = []
    // Guarded by `mutex`:
    private var job: ((Int) -> Void)?
    private var count = 0
    private var nextIndex = 0
    private var done = 0
    private var generation = 0
    private var stopping = false

    /// The helpers for this machine: one fewer than its cores, at most 3.
    static var helpersHere: Int { max(0, min(3, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1)) }

    init(helpers: Int) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
        pthread_cond_init(finished, nil)
        for _ in 0..<helpers {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            let started = pthread_create(&thread, nil, { context in
                let crew = Unmanaged<InflateCrew>.fromOpaque(context!).takeRetainedValue()
                crew.helperLoop()
                return nil
            }, context)
            if started == 0 {
                threads.append(thread)
            } else {
                // No thread: the caller inflates more itself.
                Unmanaged<InflateCrew>.fromOpaque(context).release()
            }
        }
    }

    deinit {
        pthread_cond_destroy(finished)
        pthread_cond_destroy(work)
        pthread_mutex_destroy(mutex)
        finished.deallocate()
        work.deallocate()
        mutex.deallocate()
    }

    /// Runs `job` once for each index below `count`, on the helpers and
    /// the calling thread, and returns when every one has returned. Each
    /// index is taken by one thread: a job that writes only its own slot
    /// of a buffer needs no lock.
    func perform(_ count: Int, _ job: (Int) -> Void) {
        guard count > 0 else { return }
        // Held only until every index has returned, below.
        withoutActuallyEscaping(job) { job in run(count, job) }
    }

    private func run(_ count: Int, _ job: @escaping (Int) -> Void) {
        pthread_mutex_lock(mutex)
        self.job = job
        self.count = count
        nextIndex = 0
        done = 0
        generation += 1
        pthread_cond_broadcast(work)
        pthread_mutex_unlock(mutex)
        takeIndices()
        pthread_mutex_lock(mutex)
        while done < count { pthread_cond_wait(finished, mutex) }
        self.job = nil
        self.count = 0
        pthread_mutex_unlock(mutex)
    }

    /// Ends the helpers and waits for them; the crew is done with.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(work)
        pthread_mutex_unlock(mutex)
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }

    /// Runs the job's indices until none is left to take.
    private func takeIndices() {
        while true {
            pthread_mutex_lock(mutex)
            guard job != nil, nextIndex < count else {
                pthread_mutex_unlock(mutex)
                return
            }
            let index = nextIndex
            nextIndex += 1
            pthread_mutex_unlock(mutex)
            invoke(index)
            pthread_mutex_lock(mutex)
            done += 1
            if done == count { pthread_cond_signal(finished) }
            pthread_mutex_unlock(mutex)
        }
    }

    /// The job for one index. Its own function, so that this thread's
    /// reference to the job is gone before the index counts as done: the
    /// job is the caller's non-escaping closure, and must not outlive
    /// `perform`.
    private func invoke(_ index: Int) {
        pthread_mutex_lock(mutex)
        let job = self.job
        pthread_mutex_unlock(mutex)
        job?(index)
    }

    private func helperLoop() {
        var seen = 0
        pthread_mutex_lock(mutex)
        while true {
            while generation == seen, !stopping { pthread_cond_wait(work, mutex) }
            if stopping { break }
            seen = generation
            pthread_mutex_unlock(mutex)
            takeIndices()
            pthread_mutex_lock(mutex)
        }
        pthread_mutex_unlock(mutex)
    }
}
