/// One Turkcell filter rule, such as `"<= 5.0, 7.0, > 10.0"` or `"iPhone*,!iPhone1*"`.
///
/// The rule and the value are lower-cased and stripped of all white space.
/// Parts are split on `,` (empty parts ignored); a part starting with `!`
/// excludes. A value matches when no exclusion matches and either there are
/// no inclusions or one of them matches. So `*` matches everything, the
/// empty string included; `!''` needs a value; `!*` matches nothing.
public struct FilterRule: Sendable, Equatable {
    /// One comma-separated piece of a rule.
    public enum Part: Sendable, Equatable {
        /// `''`: the value is empty.
        case empty
        /// `<`, `<=`, `>`, `>=`, `<>` against a signed integer or a dotted version.
        case comparison(Comparison, String)
        /// A part holding `*`: anchored, `*` any run, `?` one character.
        case glob(String)
        case equals(String)
    }

    public enum Comparison: String, Sendable, CaseIterable {
        case notEqual = "<>", lessOrEqual = "<=", greaterOrEqual = ">=", less = "<", greater = ">"
    }

    /// The rule as written, for messages.
    public let text: String
    public let includes: [Part]
    public let excludes: [Part]

    public init(_ text: String) {
        self.text = text
        var includes: [Part] = []
        var excludes: [Part] = []
        for piece in Self.normalize(text).split(separator: ",") {
            if piece.hasPrefix("!") {
                let rest = piece.dropFirst()
                if !rest.isEmpty { excludes.append(Self.part(rest)) }
            } else {
                includes.append(Self.part(piece))
            }
        }
        self.includes = includes
        self.excludes = excludes
    }

    /// Whether a property's value satisfies the rule; a missing property is empty.
    public func matches(_ value: String?) -> Bool {
        let value = Self.normalize(value ?? "")
        if excludes.contains(where: { Self.part($0, matches: value) }) { return false }
        return includes.isEmpty || includes.contains { Self.part($0, matches: value) }
    }

    static func normalize(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { !$0.properties.isWhitespace })
    }

    private static func part(_ text: Substring) -> Part {
        if text == "''" { return .empty }
        for comparison in Comparison.allCases where text.hasPrefix(comparison.rawValue) {
            return .comparison(comparison, String(text.dropFirst(comparison.rawValue.count)))
        }
        if text.contains("*") { return .glob(String(text)) }
        return .equals(String(text))
    }

    private static func part(_ part: Part, matches value: String) -> Bool {
        switch part {
        case .empty:
            return value.isEmpty
        case let .equals(expected):
            return value == expected
        case let .glob(pattern):
            return Glob.matches(Array(pattern), Array(value))
        case let .comparison(comparison, operand):
            guard let lhs = RuleNumber(value), let rhs = RuleNumber(operand),
                  let order = lhs.compare(to: rhs) else { return false }
            switch comparison {
            case .notEqual: return order != .same
            case .lessOrEqual: return order != .newer
            case .greaterOrEqual: return order != .older
            case .less: return order == .older
            case .greater: return order == .newer
            }
        }
    }
}

/// A number a rule can compare: a signed integer (`-56`) or a dotted
/// version (`6.1.2`); other text is not a number and matches no comparison.
struct RuleNumber {
    let negative: Bool
    let parts: [Substring.UTF8View]

    init?(_ text: String) {
        var digits = Substring(text)
        negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(DigitRun.isDigit) }),
              !(negative && parts.count > 1) else { return nil }
        self.parts = parts.map(\.utf8)
    }

    private var isZero: Bool { parts.allSatisfy { $0.allSatisfy { $0 == UInt8(ascii: "0") } } }

    /// Nil when one side is a negative integer and the other a dotted version.
    func compare(to other: RuleNumber) -> VersionComparison? {
        if parts.count == 1 && other.parts.count == 1 {
            let lhsNegative = negative && !isZero
            let rhsNegative = other.negative && !other.isZero
            switch (lhsNegative, rhsNegative) {
            case (false, true): return .newer
            case (true, false): return .older
            case (true, true): return DigitRun.compare(other.parts[0], parts[0])
            case (false, false): return DigitRun.compare(parts[0], other.parts[0])
            }
        }
        guard !negative, !other.negative else { return nil }
        let zero = "0".utf8[...]
        for index in 0..<max(parts.count, other.parts.count) {
            let lhs = index < parts.count ? parts[index][...] : zero
            let rhs = index < other.parts.count ? other.parts[index][...] : zero
            let order = DigitRun.compare(lhs, rhs)
            if order != .same { return order }
        }
        return .same
    }
}

/// Anchored wildcard matching: `*` any run (also empty), `?` one character,
/// everything else literal. Backtracks only to the last `*`, so it runs in
/// O(pattern × value) at worst; with both at most `maximumLength`
/// characters (a longer pattern or value matches no glob), one part costs
/// at most 65,536 steps, whatever a server writes.
enum Glob {
    static let maximumLength = 256

    static func matches(_ pattern: [Character], _ value: [Character]) -> Bool {
        guard pattern.count <= maximumLength, value.count <= maximumLength else { return false }
        var p = 0
        var v = 0
        var star: Int?
        var resume = 0
        while v < value.count {
            if p < pattern.count && (pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == value[v])) {
                p += 1
                v += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                resume = v
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                v = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
