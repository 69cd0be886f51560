// A regular-expression matcher whose running time is O(text length × program size).
//
// The pattern is parsed (with an explicit stack, so no input can exhaust the call stack)
// into a small tree (`LinearPattern+Parser.swift`), compiled to instructions
// (`+Compiler.swift`), and run as a Pike VM (`+PikeVM.swift`): a Thompson-NFA
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
