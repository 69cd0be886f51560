/// At most `capacity` at once; the rest wait their turn in arrival order.
/// The service's reloads (one at a time) and check slots (eight at a
/// time) both pass one. It belongs to one actor and runs on it.
final class Turnstile {
    let capacity: Int
    private(set) var inside = 0
    /// How many have been let in, ever: each entry's number in line.
    private var admitted = 0
    private var waiting: [CheckedContinuation<Int, Never>] = []
    /// The first still waiting in `waiting`: removing from the front of
    /// an array would move every other waiter.
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// How many wait for a turn now.
    var waitingCount: Int { waiting.count - head }

    /// Returns once it is the caller's turn, with its number in line (0
    /// for the first ever let in): the order of admission, which the
    /// order resumed callers next run in on a busy executor need not be.
    @discardableResult
    nonisolated(nonsending) func enter() async -> Int {
        guard inside >= capacity else {
            inside += 1
            admitted += 1
            return admitted - 1
        }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the next in line, or frees it. Returns true when
    /// nobody is inside any more.
    @discardableResult
    func leave() -> Bool {
        guard head < waiting.count else {
            inside -= 1
            return inside == 0
        }
        let next = waiting[head]
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        admitted += 1
        next.resume(returning: admitted - 1)
        return false
    }
}
