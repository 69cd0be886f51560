/// One connection's answers on their way out, in the order of its calls:
/// the task that reads calls puts them in, the task that writes replies
/// takes them out. A change's reply waits for its state write while the
/// calls behind it are read and made, so pipelined holds share one write
/// (issue 52). At most `capacity` answers wait; then the reader waits too,
/// so a client that never reads its replies is not read either.
actor ReplyQueue {
    private let capacity: Int
    private var answers: [ControlDispatcher.Answer] = []
    /// The reader, waiting for room: resumed with false when the writer has gone.
    private var reader: CheckedContinuation<Bool, Never>?
    /// The writer, waiting for an answer: resumed with nil at the end.
    private var writer: CheckedContinuation<ControlDispatcher.Answer?, Never>?
    private var finished = false
    private var abandoned = false

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Queues `answer`; false once the writer has gone (read no more).
    func push(_ answer: ControlDispatcher.Answer) async -> Bool {
        guard !abandoned else { return false }
        if let writer {
            self.writer = nil
            writer.resume(returning: answer)
            return true
        }
        answers.append(answer)
        guard answers.count >= capacity else { return true }
        return await withCheckedContinuation { reader = $0 }
    }

    /// The next answer, in order; nil once the reader has finished and
    /// every answer has been taken.
    func next() async -> ControlDispatcher.Answer? {
        if !answers.isEmpty {
            let answer = answers.removeFirst()
            if let reader {
                self.reader = nil
                reader.resume(returning: true)
            }
            return answer
        }
        guard !finished else { return nil }
        return await withCheckedContinuation { writer = $0 }
    }

    /// The reader read its last call.
    func finish() {
        finished = true
        writer?.resume(returning: nil)
        writer = nil
    }

    /// The writer has gone (the client left, or an answer ends the
    /// connection): what waits is dropped, and the reader stops.
    func abandon() {
        abandoned = true
        answers = []
        reader?.resume(returning: false)
        reader = nil
    }
}
