/// A table while a document is read. Past `scanned` members a dictionary
/// index keeps every lookup constant-time however many keys the table gets;
/// below, a scan of the names is cheaper than the index's key arrays (an
/// app's table has a handful of keys; issue 55). `origin` records how the
/// table came to be, which decides what may extend it later.
final class TOMLTableBuilder {
    enum Origin {
        /// Named on the way to a deeper header (`a` in `[a.b]`): a header may still define it.
        case implicit
        /// Defined by its own `[header]` or as an element of `[[header]]`.
        case header
        /// Made by dotted keys (`a.b = 1`), inside an inline table or not.
        case dotted
    }

    enum Slot {
        case value(ConfigValue)
        case table(TOMLTableBuilder)
        case tables(TOMLTableArrayBuilder)
    }

    var origin: Origin
    /// Tables and arrays between the root and this table, counting itself.
    let depth: Int
    /// In document order.
    private(set) var members: [(name: String, slot: Slot)] = []
    /// By the key's UTF-8 bytes: TOML compares keys by code point, and
    /// Swift's `String` equality would make "\u{E9}" and "e\u{301}" one key.
    /// Empty until the table has more than `scanned` members.
    private var index: [[UInt8]: Int] = [:]
    /// Up to this many members, a name is found by a scan of their names'
    /// bytes; past it, by the index.
    static let scanned = 16

    init(origin: Origin, depth: Int) {
        self.origin = origin
        self.depth = depth
    }

    subscript(name: String) -> Slot? {
        guard let position = position(of: name) else { return nil }
        return members[position].slot
    }

    private func position(of name: String) -> Int? {
        guard members.count > Self.scanned else {
            let bytes = name.utf8
            return members.firstIndex { $0.name.utf8.count == bytes.count && $0.name.utf8.elementsEqual(bytes) }
        }
        return index[Array(name.utf8)]
    }

    /// Adds a member; the caller has checked that `name` is new.
    func insert(_ name: String, _ slot: Slot) {
        members.append((name, slot))
        if members.count == Self.scanned + 1 {
            for (position, member) in members.enumerated() { index[Array(member.name.utf8)] = position }
        } else if members.count > Self.scanned {
            index[Array(name.utf8)] = members.count - 1
        }
    }

    /// The finished table. Works with its own stack rather than recursion, and
    /// empties each builder once read, so neither building the result nor
    /// freeing the builders goes deeper on the thread's stack however deep the tree.
    func finish() -> ConfigTable {
        var stack = [Step(table: self)]
        while !stack.isEmpty {
            let top = stack.count - 1
            let table = stack[top].table
            let next = stack[top].next
            guard next < table.members.count else {
                let finished = ConfigTable(stack.removeLast().members)
                table.empty()
                guard !stack.isEmpty else { return finished }
                stack[stack.count - 1].receive(.table(finished))
                continue
            }
            switch table.members[next].slot {
            case let .value(value):
                stack[top].members.append((table.members[next].name, value))
                stack[top].next += 1
            case let .table(child):
                stack.append(Step(table: child))
            case let .tables(array):
                if stack[top].elements.isEmpty { stack[top].elements.reserveCapacity(array.tables.count) }
                if stack[top].elements.count < array.tables.count {
                    stack.append(Step(table: array.tables[stack[top].elements.count]))
                } else {
                    stack[top].members.append((table.members[next].name, .array(stack[top].elements)))
                    stack[top].elements = []
                    stack[top].next += 1
                }
            }
        }
        return ConfigTable()
    }

    private func empty() {
        members = []
        index = [:]
    }

    /// One table in `finish()`: the members read so far, and the finished
    /// elements of the array of tables at `next`, if that is one.
    private struct Step {
        let table: TOMLTableBuilder
        var next = 0
        var members: [(key: String, value: ConfigValue)] = []
        var elements: [ConfigValue] = []

        init(table: TOMLTableBuilder) {
            self.table = table
            members.reserveCapacity(table.members.count)
        }

        mutating func receive(_ finished: ConfigValue) {
            if case .tables = table.members[next].slot {
                elements.append(finished)
            } else {
                members.append((table.members[next].name, finished))
                next += 1
            }
        }
    }
}

/// The tables of one `[[header]]` array, each appended by a repeat of the header.
final class TOMLTableArrayBuilder {
    /// Depth of the array itself; its tables sit one deeper.
    let depth: Int
    var tables: [TOMLTableBuilder] = []

    init(depth: Int) {
        self.depth = depth
    }
}
