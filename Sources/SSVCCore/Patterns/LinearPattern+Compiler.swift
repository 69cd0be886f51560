extension LinearPattern {
    enum Inst: Sendable {
        case scalar(Unicode.Scalar)       // consume this scalar
        case set(Int)                     // consume a scalar in sets[i]
        case dot                          // consume any scalar but "\n"
        case match
        case split(Int, Int)              // continue at both, the first with higher priority
        case jump(Int)
        case save(Int)                    // slot = current position (captures and loop starts)
        case check(Int, exit: Int)        // slot == position (an empty loop iteration): goto exit
        case assert(Anchor)
    }

    /// A compiled pattern.
    ///
    /// A thread's future depends on its instruction and, for each enclosing unbounded loop whose
    /// body can match empty, on whether the loop's current iteration has consumed anything yet
    /// (the `check` ending an iteration exits on no progress). These flags nest: if an outer
    /// iteration is still empty, so are the inner ones. So a state is the instruction plus the
    /// count of innermost enclosing loops whose iteration is still empty, and the VM's "visited"
    /// set is keyed by that pair: `keyBase[pc] + emptyLoops`. (Keying by the instruction alone
    /// loses matches such as `b*((\.a*)*?.??\d*)*` on "b1aa".)
    struct Program: Sendable {
        var insts: [Inst] = []
        var sets: [ScalarSet] = []
        var slotCount = 0
        var captureCount = 0
        var anchoredStart = false
        var innermostLoop: [Int] = []                            // per instruction, -1 when none
        var loops: [(slot: Int, parent: Int, depth: Int)] = []   // each emitted unbounded loop body
        var keyBase: [Int] = []                                  // per instruction
        var keyCount = 0
    }

    /// Turns the parser's tree into a `Program`: captures and loop starts become `save`s,
    /// alternation and repetition become `split`s and `jump`s, and a loop whose body can
    /// match empty gets a `check` that ends it on an iteration that consumed nothing.
    struct Compiler {
        let parser: Parser
        var program = Program()
        var loopSlots: [Int: Int] = [:]   // unbounded repetition node -> its loop-start slot
        var openLoop = -1                 // innermost loop body being emitted

        /// Nodes that compile to no instructions match "" and capture nothing, so they are
        /// skipped: `(?:(?:){1000}){1000}` costs nothing. Every other compile call emits at least
        /// one instruction, so the program-size limit also bounds compile time.
        var emitsNothing: [Bool] = []
        /// Nodes that can match without consuming; only loops over these need the empty check.
        var nullable: [Bool] = []

        init(parser: Parser) {
            self.parser = parser
            program.captureCount = parser.captureCount
            program.slotCount = 2 * (parser.captureCount + 1)
            for node in parser.nodes {
                switch node {
                case .empty: emitsNothing.append(true)
                case .concat(let items): emitsNothing.append(items.allSatisfy { emitsNothing[$0] })
                case .repetition(let body, _, let max, _): emitsNothing.append(max == 0 || (max != nil && emitsNothing[body]))
                default: emitsNothing.append(false)
                }
                switch node {
                case .empty, .anchor: nullable.append(true)
                case .scalar, .set, .dot: nullable.append(false)
                case .concat(let items): nullable.append(items.allSatisfy { nullable[$0] })
                case .alternate(let items): nullable.append(items.contains { nullable[$0] })
                case .capture(let body, _): nullable.append(nullable[body])
                case .repetition(let body, let min, _, _): nullable.append(min == 0 || nullable[body])
                }
            }
        }

        mutating func compile(_ root: Int) throws(SyntaxError) -> Program {
            emit(.save(0))
            try compile(node: root)
            emit(.save(1))
            emit(.match)
            guard program.insts.count <= LinearPattern.maxProgramSize else {
                throw parser.error("pattern too large: more than \(LinearPattern.maxProgramSize) instructions", at: 0)
            }
            for pc in program.insts.indices {
                let loop = program.innermostLoop[pc]
                program.keyBase.append(program.keyCount)
                program.keyCount += 1 + (loop < 0 ? 0 : program.loops[loop].depth)
            }
            guard program.keyCount <= LinearPattern.maxStates else {
                throw parser.error("pattern too large: more than \(LinearPattern.maxStates) states in nested loops", at: 0)
            }
            switch parser.nodes[root] {
            case .anchor(.textStart): program.anchoredStart = true
            case .concat(let items):
                if let first = items.first, case .anchor(.textStart) = parser.nodes[first] { program.anchoredStart = true }
            default: break
            }
            return program
        }

        @discardableResult
        mutating func emit(_ inst: Inst) -> Int {
            program.insts.append(inst)
            switch inst {
            case .scalar, .set, .dot, .match: program.innermostLoop.append(-1)   // consuming: loop flags don't matter
            default: program.innermostLoop.append(openLoop)
            }
            return program.insts.count - 1
        }

        /// Recursion depth is bounded by the group nesting limit, as quantifiers can't stack.
        mutating func compile(node: Int) throws(SyntaxError) {
            if emitsNothing[node] { return }
            guard program.insts.count < LinearPattern.maxProgramSize else {
                throw parser.error("pattern too large: more than \(LinearPattern.maxProgramSize) instructions",
                                   at: parser.nodeOffsets[node])
            }
            switch parser.nodes[node] {
            case .empty: break
            case .scalar(let s): emit(.scalar(s))
            case .dot: emit(.dot)
            case .anchor(let a): emit(.assert(a))
            case .set(let s):
                program.sets.append(s)
                emit(.set(program.sets.count - 1))
            case .concat(let items):
                for item in items { try compile(node: item) }
            case .capture(let body, let index):
                emit(.save(2 * index))
                try compile(node: body)
                emit(.save(2 * index + 1))
            case .alternate(let alternatives):
                var jumps: [Int] = []
                for alternative in alternatives.dropLast() {
                    let split = emit(.split(0, 0))
                    try compile(node: alternative)
                    jumps.append(emit(.jump(0)))
                    program.insts[split] = .split(split + 1, program.insts.count)
                }
                if let last = alternatives.last { try compile(node: last) }
                for jump in jumps { program.insts[jump] = .jump(program.insts.count) }
            case .repetition(let body, let low, let high?, let greedy):
                // x{n,m}: n copies, then m-n optional copies, each behind a split to the end.
                for _ in 0..<low { try compile(node: body) }
                var splits: [Int] = []
                for _ in low..<high {
                    splits.append(emit(.split(0, 0)))
                    try compile(node: body)
                }
                let end = program.insts.count
                for s in splits { program.insts[s] = greedy ? .split(s + 1, end) : .split(end, s + 1) }
            case .repetition(let body, let low, nil, let greedy):
                try compileUnbounded(body, low: low, greedy: greedy, node: node)
            }
        }

        /// x{n,}: `n` required iterations, then the loop proper. If x can match empty then, as in
        /// Swift's Regex, every iteration records where it started, and one that consumed nothing
        /// leaves the loop, keeping its captures. Otherwise every iteration consumes: no check.
        mutating func compileUnbounded(_ body: Int, low: Int, greedy: Bool, node: Int) throws(SyntaxError) {
            var slot: Int? = nil
            if nullable[body] {
                slot = loopSlots[node] ?? program.slotCount
                if slot == program.slotCount {
                    program.slotCount += 1
                    loopSlots[node] = slot
                }
            }
            var checks: [Int] = [], loop = 0
            for copy in 0...low {
                if copy == low { loop = emit(.split(0, 0)) }
                if let slot {
                    emit(.save(slot))
                    let depth = openLoop < 0 ? 1 : program.loops[openLoop].depth + 1
                    program.loops.append((slot: slot, parent: openLoop, depth: depth))
                    openLoop = program.loops.count - 1
                }
                try compile(node: body)
                if let slot {
                    checks.append(emit(.check(slot, exit: 0)))
                    openLoop = program.loops[openLoop].parent
                }
            }
            emit(.jump(loop))
            let end = program.insts.count
            program.insts[loop] = greedy ? .split(loop + 1, end) : .split(end, loop + 1)
            for c in checks { program.insts[c] = .check(slot ?? 0, exit: end) }
        }
    }
}
