@preconcurrency import Glibc

/// Runs work on a thread of its own with a stack of a chosen size, and
/// waits for it: for recursive code (a parser) whose depth the input sets,
/// so that how deep it may go does not depend on the calling thread.
public enum StackThread {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// `body`'s result, computed on a new thread with `stackSize` bytes of
    /// stack; on the calling thread when no thread can be made.
    public static func run<T>(stackSize: Int, _ body: @escaping () -> T) -> T {
        var result: T?
        let work = Unmanaged.passRetained(Work { result = body() })
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, work.toOpaque())
        guard created == 0 else {
            work.release()
            return body()
        }
        pthread_join(thread, nil)
        return result!
    }
}
