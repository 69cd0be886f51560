extension LinearPattern {
    /// Runs a `Program` over the text once, all threads in lockstep: the linear-time
    /// simulation described at the top of `LinearPattern.swift`.
    struct PikeVM {
        enum Job { case explore(Int, emptyLoops: Int), restore(slot: Int, value: Int) }

        let program: Program
        let slotCount: Int
        // Threads waiting at a consuming instruction or `match`, in priority order; thread i's
        // slots are slots[i*slotCount ..< (i+1)*slotCount].
        var current: (pcs: [Int], slots: [Int]) = ([], [])
        var next: (pcs: [Int], slots: [Int]) = ([], [])
        var visited: [Int]          // per state key: the position whose closure last reached it
        var scratch: [Int]          // slots of the thread being followed
        var stack: [Job] = []       // explicit stack for the closure, so no recursion

        init(_ program: Program) {
            self.program = program
            self.slotCount = program.slotCount
            self.visited = Array(repeating: -1, count: program.keyCount)
            self.scratch = Array(repeating: -1, count: program.slotCount)
        }

        /// Follows jumps, splits, saves and assertions from `pc` at `position`, adding the
        /// threads that reach a consuming instruction to `next`, highest priority first. Each
        /// state (see `Program`) is entered at most once per position: a later, lower-priority
        /// path to it could only find the same continuations. That bound makes the run linear.
        mutating func addThread(_ pc: Int, at position: Int, before: Unicode.Scalar?, after: Unicode.Scalar?) {
            stack.append(.explore(pc, emptyLoops: 0))   // after consuming, no iteration is empty
            while let job = stack.popLast() {
                guard case .explore(let pc, let emptyLoops) = job else {
                    if case .restore(let slot, let value) = job { scratch[slot] = value }
                    continue
                }
                let key = program.keyBase[pc] + (program.innermostLoop[pc] < 0 ? 0 : emptyLoops)
                guard visited[key] != position else { continue }
                visited[key] = position
                /// Pushes a successor with its empty-loop count. Loop bodies are entered only through
                /// their `save` (starting an empty iteration) and left only through their `check`.
                func push(_ target: Int) {
                    let from = program.innermostLoop[pc], to = program.innermostLoop[target]
                    var count = emptyLoops
                    if to < 0 {
                        count = 0                       // outside all loops (or consuming: key ignores it)
                    } else if from == to {
                        // same loop body
                    } else if program.loops[to].parent == from {
                        count += 1
                    } else if from >= 0 && program.loops[from].parent == to {
                        count = max(count - 1, 0)
                    } else {
                        count = recount(to, at: position)   // not reached by compiled programs
                    }
                    stack.append(.explore(target, emptyLoops: count))
                }
                switch program.insts[pc] {
                case .jump(let target):
                    push(target)
                case .split(let first, let second):
                    push(second)
                    push(first)
                case .save(let slot):
                    stack.append(.restore(slot: slot, value: scratch[slot]))
                    scratch[slot] = position
                    push(pc + 1)
                case .check(let slot, let exit):
                    push(scratch[slot] == position ? exit : pc + 1)
                case .assert(let anchor):
                    let holds = switch anchor {
                    case .textStart: before == nil
                    case .textEnd: after == nil
                    case .wordBoundary: isWord(before) != isWord(after)
                    case .notWordBoundary: isWord(before) == isWord(after)
                    }
                    if holds { push(pc + 1) }
                case .scalar, .set, .dot, .match:
                    next.pcs.append(pc)
                    next.slots.append(contentsOf: scratch)
                }
            }
        }

        /// Counts, from the slots, the innermost loops around `loop` whose iteration is still empty.
        func recount(_ loop: Int, at position: Int) -> Int {
            var count = 0, loop = loop
            while loop >= 0, scratch[program.loops[loop].slot] == position {
                count += 1
                loop = program.loops[loop].parent
            }
            return count
        }

        mutating func startThread(at position: Int, before: Unicode.Scalar?, after: Unicode.Scalar?) {
            for i in scratch.indices { scratch[i] = -1 }
            addThread(0, at: position, before: before, after: after)
        }

        /// Runs over the text once; returns the winning thread's slots (scalar offsets, -1 unset).
        mutating func run(_ text: String.UnicodeScalarView) -> [Int]? {
            var index = text.startIndex
            var position = 0
            var scalar: Unicode.Scalar? = index < text.endIndex ? text[index] : nil
            var matched: [Int]? = nil
            startThread(at: 0, before: nil, after: scalar)

            while true {
                swap(&current, &next)
                next.pcs.removeAll(keepingCapacity: true)
                next.slots.removeAll(keepingCapacity: true)
                if current.pcs.isEmpty && (matched != nil || (program.anchoredStart && position > 0)) { break }

                var nextIndex = index
                var after: Unicode.Scalar? = nil
                if scalar != nil {
                    nextIndex = text.index(after: index)
                    after = nextIndex < text.endIndex ? text[nextIndex] : nil
                }
                threads: for t in current.pcs.indices {
                    let pc = current.pcs[t]
                    let consumed: Bool
                    switch program.insts[pc] {
                    case .match:
                        // The best thread so far; lower-priority ones can't win any more.
                        matched = Array(current.slots[t * slotCount..<(t + 1) * slotCount])
                        break threads
                    case .scalar(let s): consumed = scalar == s
                    case .set(let k): consumed = scalar.map { program.sets[k].contains($0.value) } ?? false
                    case .dot: consumed = scalar.map { $0 != "\n" } ?? false
                    default: consumed = false
                    }
                    if consumed {
                        for i in 0..<slotCount { scratch[i] = current.slots[t * slotCount + i] }
                        addThread(pc + 1, at: position + 1, before: scalar, after: after)
                    }
                }
                guard let consumedScalar = scalar else { break }
                // A new attempt starting one scalar later has the lowest priority of all.
                if matched == nil && !program.anchoredStart {
                    startThread(at: position + 1, before: consumedScalar, after: after)
                }
                scalar = after
                index = nextIndex
                position += 1
            }
            return matched
        }
    }
}

private func isWord(_ scalar: Unicode.Scalar?) -> Bool {
    scalar.map { LinearPattern.ScalarSet.word.contains($0.value) } ?? false
}
