/// A TOML table: its members in document order.
public struct ConfigTable: Sendable, Equatable, Sequence {
    public var members: [(key: String, value: ConfigValue)] = []

    public init(_ members: [(key: String, value: ConfigValue)] = []) {
        self.members = members
    }

    /// The first member named `key`; a parsed table never holds two.
    public subscript(key: String) -> ConfigValue? {
        members.first { $0.key == key }?.value
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: ConfigValue)]> {
        members.makeIterator()
    }

    /// Equal when the same keys come in the same order with equal values.
    public static func == (a: ConfigTable, b: ConfigTable) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
