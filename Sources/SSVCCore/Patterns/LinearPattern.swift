// A regular-expression matcher whose running time is O(text length × program size).
//
// The pattern is parsed (with an explicit stack, so no input can exhaust the call stack)
// into a small tree, compiled to instructions, and run as a Pike VM: a Thompson-NFA
// simulation that keeps at most one thread per state per text position, each thread
// carrying its own capture slots. Threads are kept in priority order, which yields the
// match a backtracking engine (Perl, Swift's `Regex`) would return, without backtracking.

/// A regular expression matched in time linear in the text.
///
/// Semantics (deliberately small and predictable):
/// - Matching works on the text's Unicode scalars; `.` is any scalar except "\n".
/// - `\d`, `\w`, `\s` and so `\b`/`\B` are ASCII-only: `[0-9]`, `[A-Za-z0-9_]`, `[\t\n\x0B\f\r ]`.
/// - `^` and `\A` match only at the start of the text; `$` and `\z` only at its very end
///   (unlike Perl and Swift, `$` does not also match before a final "\n").
/// - As in Swift's `Regex`, an iteration of an unbounded loop (`*`, `+`, `{n,}`) that
///   matches nothing ends the loop, keeping its captures: `(a|)*` matches "", `(a*)*` on "b"
///   captures "".
/// - Groups are numbered by their `(` in the pattern, `x{0}` included (Swift's Regex drops
///   groups under `{0}` and renumbers the rest).
/// - A `{` that does not start `{n}`, `{n,}` or `{n,m}` must be escaped. In a class, `]` first
///   is a literal, while `[`, `&&`, `--` and `~~` are refused (no nested classes or set algebra).
///
/// Backreferences, lookaround, atomic groups, possessive quantifiers, inline flags and
/// conditionals are refused at `init`: they need backtracking or are out of scope.
public struct LinearPattern: Sendable {
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Character offset in the pattern where the problem starts.
        public var offset: Int
        public var message: String
        public var description: String { "at character \(offset): \(message)" }
    }

    /// Bounds that keep compilation and every later match cheap.
    public static let maxRepetition = 1000
    public static let maxProgramSize = 10_000
    public static let maxNesting = 100
    /// VM states: instructions, counted once more per enclosing loop that can match empty.
    public static let maxStates = 100_000

    public let pattern: String
    private let program: Program

    /// Number of capturing groups, named ones included.
    public var captureCount: Int { program.captureCount }

    public init(_ pattern: String) throws(SyntaxError) {
        var parser = Parser(pattern)
        let root = try parser.parse()
        var compiler = Compiler(parser: parser)
        self.program = try compiler.compile(root)
        self.pattern = pattern
    }

    /// The first (leftmost) match, leftmost-first alternation priority and greedy/lazy
    /// quantifiers as Perl and Swift's Regex choose; element 0 is the whole match, element i
    /// the i-th capture group (nil when it did not take part). nil when no match.
    public func firstMatch(in text: String) -> [Substring?]? {
        let scalars = text.unicodeScalars
        var vm = PikeVM(program)
        guard let slots = vm.run(scalars) else { return nil }

        // Slots hold scalar offsets; map the ones we need to indices in one forward walk.
        var indexAt: [Int: String.Index] = [:]
        var index = scalars.startIndex
        var offset = 0
        for target in Set(slots.prefix(2 * (captureCount + 1)).filter { $0 >= 0 }).sorted() {
            while offset < target, index < scalars.endIndex {
                scalars.formIndex(after: &index)
                offset += 1
            }
            indexAt[target] = index
        }
        return (0...captureCount).map { group in
            guard let lower = indexAt[slots[2 * group]], let upper = indexAt[slots[2 * group + 1]],
                  lower <= upper else { return nil }
            return text[lower..<upper]
        }
    }
}

// MARK: - Scalar sets

/// A set of scalar values as sorted, disjoint, non-adjacent closed ranges.
private struct ScalarSet: Sendable {
    private(set) var ranges: [ClosedRange<UInt32>] = []

    init(_ raw: [ClosedRange<UInt32>]) {
        for range in raw.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = ranges.last, range.lowerBound <= last.upperBound + 1 {
                ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
    }

    func inverted() -> ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF { result.append(next...0x10FFFF) }
        return ScalarSet(result)
    }

    func contains(_ value: UInt32) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < value { low = mid + 1 }
            else if ranges[mid].lowerBound > value { high = mid }
            else { return true }
        }
        return false
    }

    static let digit = ScalarSet([0x30...0x39])
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20])
}

private func isWord(_ scalar: Unicode.Scalar?) -> Bool {
    scalar.map { ScalarSet.word.contains($0.value) } ?? false
}

// MARK: - Parser

private enum Anchor: Sendable { case textStart, textEnd, wordBoundary, notWordBoundary }

/// Syntax tree node; children are indices into `Parser.nodes`.
private enum Node {
    case empty, dot, scalar(Unicode.Scalar), set(ScalarSet), anchor(Anchor)
    case concat([Int]), alternate([Int]), capture(Int, index: Int)
    case repetition(Int, min: Int, max: Int?, greedy: Bool)
}

private struct Parser {
    typealias SyntaxError = LinearPattern.SyntaxError

    let scalars: [Unicode.Scalar]
    let characterOffsets: [Int]          // scalar index -> character offset, plus the end
    var position = 0
    var nodes: [Node] = []               // children always precede their parent
    var nodeOffsets: [Int] = []          // scalar index where each node starts
    var captureCount = 0
    var groupNames: Set<String> = []

    /// What ends the current sequence, which decides whether a quantifier may follow.
    enum Last { case nothing, atom, quantified, anchor }

    /// One open group (or the whole pattern) on the explicit parse stack.
    struct Frame {
        var start: Int
        var capture: Int?
        var alternatives: [Int] = []
        var items: [Int] = []
        var last = Last.nothing
    }

    init(_ pattern: String) {
        scalars = Array(pattern.unicodeScalars)
        characterOffsets = pattern.enumerated().flatMap { Array(repeating: $0, count: $1.unicodeScalars.count) }
            + [pattern.count]
    }

    func error(_ message: String, at index: Int) -> SyntaxError {
        SyntaxError(offset: characterOffsets[min(max(index, 0), characterOffsets.count - 1)], message: message)
    }

    var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    /// Consumes `c` if it comes next.
    mutating func eat(_ c: Unicode.Scalar) -> Bool {
        guard peek == c else { return false }
        position += 1
        return true
    }

    mutating func add(_ node: Node, at offset: Int) -> Int {
        nodes.append(node)
        nodeOffsets.append(offset)
        return nodes.count - 1
    }

    mutating func parse() throws(SyntaxError) -> Int {
        var stack = [Frame(start: 0, capture: nil)]
        while let c = peek {
            let at = position
            position += 1
            var kind = Last.atom
            let node: Int
            switch c {
            case "(":
                let limit = LinearPattern.maxNesting
                guard stack.count <= limit else { throw error("groups nested deeper than \(limit)", at: at) }
                stack.append(Frame(start: at, capture: try parseGroupOpening(at: at)))
                continue
            case "|":
                finishSequence(&stack[stack.count - 1])
                continue
            case ")":
                guard stack.count > 1, var frame = stack.popLast() else {
                    throw error("unbalanced parenthesis: ')' without '('", at: at)
                }
                let body = finish(&frame)
                node = frame.capture.map { add(.capture(body, index: $0), at: frame.start) } ?? body
            case "*", "+", "?", "{":
                let bounds: (Int, Int?)? = switch c {
                case "*": (0, nil)
                case "+": (1, nil)
                case "?": (0, 1)
                default: try parseCountedRepetition(at: at)
                }
                guard let (low, high) = bounds else {
                    throw error("'{' does not start {n}, {n,} or {n,m}; write \\{ for a literal brace", at: at)
                }
                try quantify(min: low, max: high, at: at, in: &stack[stack.count - 1])
                continue
            case "^", "$":
                node = add(.anchor(c == "^" ? .textStart : .textEnd), at: at)
                kind = .anchor
            case ".": node = add(.dot, at: at)
            case "[": node = add(.set(try parseClass(at: at)), at: at)
            case "\\":
                let escape = try parseEscape(at: at, inClass: false)
                if case .anchor = escape { kind = .anchor }
                node = add(escape, at: at)
            default: node = add(.scalar(c), at: at)
            }
            stack[stack.count - 1].items.append(node)
            stack[stack.count - 1].last = kind
        }
        guard stack.count == 1, var top = stack.popLast() else {
            throw error("unbalanced parenthesis: '(' is never closed", at: stack.last?.start ?? 0)
        }
        return finish(&top)
    }

    mutating func finishSequence(_ frame: inout Frame) {
        let node = frame.items.count == 1
            ? frame.items[0] : add(frame.items.isEmpty ? .empty : .concat(frame.items), at: frame.start)
        frame.alternatives.append(node)
        frame.items = []
        frame.last = .nothing
    }

    mutating func finish(_ frame: inout Frame) -> Int {
        finishSequence(&frame)
        return frame.alternatives.count == 1
            ? frame.alternatives[0] : add(.alternate(frame.alternatives), at: frame.start)
    }

    mutating func quantify(min: Int, max: Int?, at: Int, in frame: inout Frame) throws(SyntaxError) {
        let symbol = String(String.UnicodeScalarView(scalars[at..<position]))
        switch frame.last {
        case .nothing: throw error("quantifier '\(symbol)' has nothing to repeat", at: at)
        case .quantified:
            throw error("quantifier '\(symbol)' follows another quantifier; wrap the first in (?:...)", at: at)
        case .anchor: throw error("quantifier '\(symbol)' follows an anchor, which can't be repeated", at: at)
        case .atom: break
        }
        if peek == "+" {
            throw error("a possessive quantifier ('\(symbol)+') needs backtracking control; not supported", at: at)
        }
        let greedy = !eat("?")
        guard let item = frame.items.popLast() else { throw error("quantifier has nothing to repeat", at: at) }
        frame.items.append(add(.repetition(item, min: min, max: max, greedy: greedy), at: at))
        frame.last = .quantified
    }

    /// Reads "n}", "n,}" or "n,m}" after a "{"; nil, consuming nothing, for any other text.
    mutating func parseCountedRepetition(at: Int) throws(SyntaxError) -> (Int, Int?)? {
        let start = position
        guard let low = parseNumber() else { return nil }
        let high = eat(",") ? parseNumber() : low
        guard eat("}") else {
            position = start
            return nil
        }
        let limit = LinearPattern.maxRepetition
        guard low <= limit, (high ?? 0) <= limit else { throw error("repetition count above \(limit) is not supported", at: at) }
        if let high, high < low {
            throw error("repetition {\(low),\(high)} has its upper bound below its lower bound", at: at)
        }
        return (low, high)
    }

    /// Decimal digits, saturating far above any accepted count so no input overflows.
    mutating func parseNumber() -> Int? {
        var value: Int?
        while let c = peek, ("0"..."9").contains(c) {
            value = min((value ?? 0) * 10 + Int(c.value - 0x30), 1_000_000)
            position += 1
        }
        return value
    }

    /// Reads what follows "(": returns the capture index, or nil for "(?:".
    mutating func parseGroupOpening(at: Int) throws(SyntaxError) -> Int? {
        guard eat("?") else {
            captureCount += 1
            return captureCount
        }
        guard let kind = peek else { throw error("unbalanced parenthesis: '(' is never closed", at: at) }
        position += 1
        if kind == ":" { return nil }
        if kind == "<" && peek != "=" && peek != "!" {
            var name = ""
            while let c = peek, c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
                    || (!name.isEmpty && ("0"..."9").contains(c)) {
                name.unicodeScalars.append(c)
                position += 1
            }
            guard !name.isEmpty, eat(">") else {
                throw error("a group name must be letters, digits or '_' (not starting with a digit), then '>'", at: at)
            }
            guard groupNames.insert(name).inserted else { throw error("duplicate group name '\(name)'", at: at) }
            captureCount += 1
            return captureCount
        }
        let construct = switch kind {
        case "<": peek == "=" ? "a lookbehind (?<=...) needs backtracking"
                              : "a negative lookbehind (?<!...) needs backtracking"
        case "=": "a lookahead (?=...) needs backtracking"
        case "!": "a negative lookahead (?!...) needs backtracking"
        case ">": "an atomic group (?>...) needs backtracking control"
        case "(": "a conditional (?(...)...)"
        case "#": "a comment group (?#...)"
        case "P", "'": "this named-group syntax (use (?<name>...))"
        case "|": "a branch-reset group (?|...)"
        case "R", "&", "+", "0"..."9": "recursion or a subroutine call such as (?R) or (?1)"
        case "-", "^", "a"..."z", "A"..."Z": "inline flags like (?i)"
        default: "the group syntax '(?\(kind)'"
        }
        throw error("\(construct); not supported", at: at)
    }

    mutating func parseClass(at: Int) throws(SyntaxError) -> ScalarSet {
        let negated = eat("^")
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while true {
            guard let c = peek else { throw error("unterminated character class '['", at: at) }
            let itemStart = position
            position += 1
            if c == "]" && !first { break }
            first = false
            let member = try parseClassMember(c, at: itemStart)
            // "x-y" is a range unless the "-" is the last thing before "]".
            let rangeFollows = peek == "-" && position + 1 < scalars.count && scalars[position + 1] != "]"
            guard case .scalar(let low) = member else {
                if rangeFollows { throw error("a class range can't start at a class escape like \\d", at: itemStart) }
                if case .set(let set) = member { ranges += set.ranges }
                continue
            }
            guard rangeFollows else { ranges.append(low.value...low.value); continue }
            let highStart = position + 1
            position += 2
            guard case .scalar(let high) = try parseClassMember(scalars[highStart], at: highStart) else {
                throw error("a class range can't end at a class escape like \\d", at: highStart)
            }
            guard low <= high else { throw error("bad class range '\(low)-\(high)': the start is above the end", at: itemStart) }
            ranges.append(low.value...high.value)
        }
        let set = ScalarSet(ranges)
        return negated ? set.inverted() : set
    }

    /// One class member whose first scalar `c` was just read: a `.scalar` or a `.set`.
    mutating func parseClassMember(_ c: Unicode.Scalar, at: Int) throws(SyntaxError) -> Node {
        switch c {
        case "[": throw error("'[' inside a class must be escaped; nested classes and [:name:] are not supported", at: at)
        case "&" where peek == "&", "-" where peek == "-", "~" where peek == "~":
            throw error("class set operations ('&&', '--', '~~') are not supported; escape them", at: at)
        case "\\": return try parseEscape(at: at, inClass: true)
        default: return .scalar(c)
        }
    }

    /// An escape after "\": a `.scalar`, a `.set` or (outside classes) an `.anchor`.
    mutating func parseEscape(at: Int, inClass: Bool) throws(SyntaxError) -> Node {
        guard let c = peek else { throw error("trailing backslash", at: at) }
        position += 1
        switch c {
        case "d", "D", "w", "W", "s", "S":
            let set: ScalarSet = c == "d" || c == "D" ? .digit : c == "w" || c == "W" ? .word : .space
            return .set(("a"..."z").contains(c) ? set : set.inverted())
        case "t": return .scalar("\t")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "x":
            let (value, digits) = readHex(maxDigits: 2)
            guard digits == 2, let s = Unicode.Scalar(value) else { throw error("\\x must be followed by two hex digits", at: at) }
            return .scalar(s)
        case "u":
            guard eat("{") else { throw error("\\u must be followed by {hex digits}", at: at) }
            let (value, digits) = readHex(maxDigits: 8)
            guard digits > 0, eat("}") else { throw error("\\u{...} needs 1 to 8 hex digits and '}'", at: at) }
            guard let s = Unicode.Scalar(value) else { throw error("\\u{...} is not a Unicode scalar value", at: at) }
            return .scalar(s)
        case "A", "z", "b", "B":
            if inClass { throw error("\\\(c) is not allowed inside a character class", at: at) }
            return .anchor(c == "A" ? .textStart : c == "z" ? .textEnd : c == "b" ? .wordBoundary : .notWordBoundary)
        case "1"..."9": throw error("a backreference (\\\(c)) needs backtracking; not supported", at: at)
        case "k": throw error("a named backreference (\\k<...>) needs backtracking; not supported", at: at)
        case "g": throw error("a backreference (\\g...) needs backtracking; not supported", at: at)
        case "0": throw error("octal escapes (\\0) are not supported; use \\x00", at: at)
        case "p", "P": throw error("Unicode property classes (\\\(c){...}) are not supported", at: at)
        case "Z": throw error("\\Z is not supported; use \\z or $", at: at)
        case "a"..."z", "A"..."Z": throw error("unknown escape \\\(c)", at: at)
        default: return .scalar(c)   // escaped punctuation (or any other non-alphanumeric) is literal
        }
    }

    mutating func readHex(maxDigits: Int) -> (UInt32, Int) {
        var value: UInt32 = 0, digits = 0
        while digits < maxDigits, let c = peek, c.isASCII, let digit = UInt32(String(c), radix: 16) {
            value = value * 16 + digit
            digits += 1
            position += 1
        }
        return (value, digits)
    }
}

// MARK: - Compiler

private enum Inst: Sendable {
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
private struct Program: Sendable {
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

private struct Compiler {
    typealias SyntaxError = LinearPattern.SyntaxError

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

// MARK: - Pike VM

private struct PikeVM {
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
