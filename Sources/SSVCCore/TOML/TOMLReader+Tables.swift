extension TOMLReader {
    /// `[a.b]` or `[[a.b]]`: makes the named table the one later key/value lines fill.
    mutating func readHeader() throws(TOMLError) {
        let start = position
        position += 1
        let isArray = peek == UInt8(ascii: "[")
        if isArray { position += 1 }
        skipBlanks()
        let key = try readKey()
        guard peek == UInt8(ascii: "]") else {
            throw failure("expected '\(isArray ? "]]" : "]")' to close the header, found \(found())")
        }
        position += 1
        if isArray {
            guard peek == UInt8(ascii: "]") else {
                throw failure("expected ']]' to close the header, found \(found())")
            }
            position += 1
        }
        let parent = try headerParent(of: key)
        current = try isArray ? appendArrayTable(key, in: parent) : defineTable(key, in: parent, header: start)
    }

    /// A key/value line in the current table.
    mutating func readKeyValue() throws(TOMLError) {
        let key = try readKey()
        guard peek == UInt8(ascii: "=") else {
            throw failure("expected '=' after a key, found \(found())")
        }
        position += 1
        skipBlanks()
        let parent = try dottedParent(of: key, in: current)
        let value = try readValue(depth: parent.depth)
        parent.insert(key.parts[key.parts.count - 1], .value(value))
    }

    /// The table that the last part of a key/value's key goes in, making the
    /// tables its dotted parts name. Dotted keys may pass through tables that
    /// dotted keys made, or that headers only named on the way, but not into
    /// a table a header defined, an array of tables, or a value (inline
    /// tables and arrays are closed once written).
    mutating func dottedParent(of key: Key, in table: TOMLTableBuilder) throws(TOMLError) -> TOMLTableBuilder {
        var table = table
        for index in 0..<key.parts.count - 1 {
            let name = key.parts[index]
            switch table[name] {
            case nil:
                let child = TOMLTableBuilder(origin: .dotted, depth: table.depth + 1)
                try checkDepth(child.depth, at: key.offsets[index])
                table.insert(name, .table(child))
                table = child
            case let .table(child)?:
                guard child.origin != .header else {
                    throw failure("cannot add to table \(key.shown(through: index)) with dotted keys: it has its own header", at: key.offsets[index])
                }
                child.origin = .dotted
                table = child
            case .tables?:
                throw failure("cannot add to \(key.shown(through: index)) with dotted keys: it is an array of tables", at: key.offsets[index])
            case let .value(value)?:
                throw failure(cannotExtend(value, key.shown(through: index)), at: key.offsets[index])
            }
        }
        let last = key.parts.count - 1
        guard table[key.parts[last]] == nil else {
            throw failure("duplicate key \(key.shown(through: last))", at: key.offsets[last])
        }
        return table
    }

    /// The table that holds a header's last part, walking from the root:
    /// into existing tables, into the last table of an array of tables, and
    /// making tables the header only names.
    private mutating func headerParent(of key: Key) throws(TOMLError) -> TOMLTableBuilder {
        var table = root
        for index in 0..<key.parts.count - 1 {
            let name = key.parts[index]
            switch table[name] {
            case nil:
                let child = TOMLTableBuilder(origin: .implicit, depth: table.depth + 1)
                try checkDepth(child.depth, at: key.offsets[index])
                table.insert(name, .table(child))
                table = child
            case let .table(child)?:
                table = child
            case let .tables(array)?:
                guard let last = array.tables.last else {
                    throw failure("empty array of tables \(key.shown(through: index))", at: key.offsets[index])
                }
                table = last
            case let .value(value)?:
                throw failure(cannotExtend(value, key.shown(through: index)), at: key.offsets[index])
            }
        }
        return table
    }

    /// `[a]`: a new table, or one that earlier headers only named.
    private mutating func defineTable(_ key: Key, in parent: TOMLTableBuilder, header: Int) throws(TOMLError) -> TOMLTableBuilder {
        let last = key.parts.count - 1
        let name = key.parts[last]
        let shown = key.shown(through: last)
        switch parent[name] {
        case nil:
            let table = TOMLTableBuilder(origin: .header, depth: parent.depth + 1)
            try checkDepth(table.depth, at: key.offsets[last])
            parent.insert(name, .table(table))
            return table
        case let .table(table)?:
            switch table.origin {
            case .implicit:
                table.origin = .header
                return table
            case .header:
                throw failure("table \(shown) is defined more than once", at: header)
            case .dotted:
                throw failure("table \(shown) was already made by dotted keys", at: header)
            }
        case .tables?:
            throw failure("\(shown) is an array of tables, not a table", at: header)
        case let .value(value)?:
            throw failure(cannotExtend(value, shown), at: header)
        }
    }

    /// `[[a]]`: a new table at the end of the array of tables, made on first use.
    private mutating func appendArrayTable(_ key: Key, in parent: TOMLTableBuilder) throws(TOMLError) -> TOMLTableBuilder {
        let last = key.parts.count - 1
        let name = key.parts[last]
        let array: TOMLTableArrayBuilder
        switch parent[name] {
        case nil:
            array = TOMLTableArrayBuilder(depth: parent.depth + 1)
            try checkDepth(array.depth + 1, at: key.offsets[last])
            parent.insert(name, .tables(array))
        case let .tables(existing)?:
            array = existing
        case .table?:
            throw failure("\(key.shown(through: last)) is a table, not an array of tables", at: key.offsets[last])
        case let .value(value)?:
            throw failure(cannotExtend(value, key.shown(through: last)), at: key.offsets[last])
        }
        let table = TOMLTableBuilder(origin: .header, depth: array.depth + 1)
        array.tables.append(table)
        return table
    }

    private func cannotExtend(_ value: ConfigValue, _ shown: String) -> String {
        switch value {
        case .table: "inline table \(shown) cannot be extended"
        case .array: "array \(shown) cannot be extended: only arrays made with [[...]] can"
        default: "key \(shown) already has a value"
        }
    }

    /// Refuses a table or array nested deeper than `maxDepth`.
    func checkDepth(_ depth: Int, at offset: Int) throws(TOMLError) {
        guard depth <= maxDepth else {
            throw failure("tables and arrays nest more than \(maxDepth) deep", at: offset)
        }
    }
}
