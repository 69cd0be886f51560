extension LinearPattern {
    enum Anchor: Sendable { case textStart, textEnd, wordBoundary, notWordBoundary }

    /// Syntax tree node; children are indices into `Parser.nodes`.
    enum Node {
        case empty, dot, scalar(Unicode.Scalar), set(ScalarSet), anchor(Anchor)
        case concat([Int]), alternate([Int]), capture(Int, index: Int)
        case repetition(Int, min: Int, max: Int?, greedy: Bool)
    }

    /// Reads a pattern into `nodes` in one pass. Open groups live on an explicit stack
    /// (`Frame`), not the call stack, so no nesting depth can overflow it; every refusal
    /// is a `SyntaxError` at the offending character.
    struct Parser {
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
}
