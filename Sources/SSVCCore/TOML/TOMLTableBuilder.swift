/// A table while a document is read. A dictionary index keeps every lookup
/// constant-time however many keys the table gets; `origin` records how the
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
    private(set) var names: [String] = []
    private(set) var slots: [Slot] = []
    /// By the key's UTF-8 bytes: TOML compares keys by code point, and
    /// Swift's `String` equality would make "\u{E9}" and "e\u{301}" one key.
    private var index: [[UInt8]: Int] = [:]

    init(origin: Origin, depth: Int) {
        self.origin = origin
        self.depth = depth
    }

    subscript(name: String) -> Slot? {
        guard let position = index[Array(name.utf8)] else { return nil }
        return slots[position]
    }

    /// Adds a member; the caller has checked that `name` is new.
    func insert(_ name: String, _ slot: Slot) {
        index[Array(name.utf8)] = slots.count
        names.append(name)
        slots.append(slot)
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
            guard next < table.slots.count else {
                let finished = ConfigTable(stack.removeLast().members)
                table.empty()
                guard !stack.isEmpty else { return finished }
                stack[stack.count - 1].receive(.table(finished))
                continue
            }
            switch table.slots[next] {
            case let .value(value):
                stack[top].members.append((table.names[next], value))
                stack[top].next += 1
            case let .table(child):
                stack.append(Step(table: child))
            case let .tables(array):
                if stack[top].elements.count < array.tables.count {
                    stack.append(Step(table: array.tables[stack[top].elements.count]))
                } else {
                    stack[top].members.append((table.names[next], .array(stack[top].elements)))
                    stack[top].elements = []
                    stack[top].next += 1
                }
            }
        }
        return ConfigTable()
    }

    private func empty() {
        names = []
        slots = []
        index = [:]
    }

    /// One table in `finish()`: the members read so far, and the finished
    /// elements of the array of tables at `next`, if that is one.
    private struct Step {
        let table: TOMLTableBuilder
        var next = 0
        var members: [(key: String, value: ConfigValue)] = []
        var elements: [ConfigValue] = []

        mutating func receive(_ finished: ConfigValue) {
            if case .tables = table.slots[next] {
                elements.append(finished)
            } else {
                members.append((table.names[next], finished))
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
