/// An entry's filters: one rule per client property, all of which must match.
public struct TurkcellFilters: Sendable, Equatable {
    public let rules: [(property: String, rule: FilterRule)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.rules.count == rhs.rules.count
            && zip(lhs.rules, rhs.rules).allSatisfy { $0.property == $1.property && $0.rule == $1.rule }
    }

    /// An absent or `null` filters object filters nothing.
    init(_ field: JSONField?) throws(DocumentError) {
        guard let field else {
            rules = []
            return
        }
        var rules: [(String, FilterRule)] = []
        for (property, value) in try field.members() {
            rules.append((property, FilterRule(try value.lenientString())))
        }
        self.rules = rules
    }

    /// True when every rule matches its property; a property this machine
    /// does not have is the empty string.
    public func match(_ properties: [String: String]) -> Bool {
        rules.allSatisfy { $0.rule.matches(properties[$0.property]) }
    }
}
