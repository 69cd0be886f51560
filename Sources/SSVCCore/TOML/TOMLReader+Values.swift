extension TOMLReader {
    /// An array or inline table still open while its elements are read.
    /// Classes, so that appending to the innermost one never copies it.
    private enum Open {
        case array(OpenArray)
        case table(OpenTable)

        /// Depth of the container the next value goes in.
        var depth: Int {
            switch self {
            case let .array(array): array.depth
            case let .table(table): table.parent.depth
            }
        }
    }

    private final class OpenArray {
        let depth: Int
        var values: [ConfigValue] = []

        init(depth: Int) {
            self.depth = depth
        }
    }

    private final class OpenTable {
        let table: TOMLTableBuilder
        /// Where the value being read goes: the inline table itself, or a
        /// table its dotted key made.
        var parent: TOMLTableBuilder
        var name: String

        init(table: TOMLTableBuilder, parent: TOMLTableBuilder, name: String) {
            self.table = table
            self.parent = parent
            self.name = name
        }
    }

    /// Reads one value whose container sits at `depth`. Arrays and inline
    /// tables are read with a stack of open containers rather than by
    /// recursion, so nesting costs no thread stack; `maxDepth` bounds it.
    mutating func readValue(depth: Int) throws(TOMLError) -> ConfigValue {
        var open: [Open] = []
        while true {
            var value: ConfigValue
            let containerDepth = open.last?.depth ?? depth
            switch peek {
            case UInt8(ascii: "["):
                try checkDepth(containerDepth + 1, at: position)
                position += 1
                skipArraySpace()
                guard peek == UInt8(ascii: "]") else {
                    open.append(.array(OpenArray(depth: containerDepth + 1)))
                    continue
                }
                position += 1
                value = .array([])
            case UInt8(ascii: "{"):
                try checkDepth(containerDepth + 1, at: position)
                position += 1
                skipBlanks()
                guard peek == UInt8(ascii: "}") else {
                    let table = TOMLTableBuilder(origin: .dotted, depth: containerDepth + 1)
                    let (parent, name) = try readInlineKey(in: table)
                    open.append(.table(OpenTable(table: table, parent: parent, name: name)))
                    continue
                }
                position += 1
                value = .table(ConfigTable())
            default:
                value = try readScalar()
            }
            deliver: while let innermost = open.last {
                switch innermost {
                case let .array(array):
                    array.values.append(value)
                    skipArraySpace()
                    if peek == UInt8(ascii: ",") {
                        position += 1
                        skipArraySpace()
                        if peek != UInt8(ascii: "]") { break deliver }
                    } else if peek != UInt8(ascii: "]") {
                        throw failure("expected ',' or ']' after an array element, found \(found())")
                    }
                    position += 1
                    open.removeLast()
                    value = .array(array.values)
                case let .table(table):
                    table.parent.insert(table.name, .value(value))
                    skipBlanks()
                    if peek == UInt8(ascii: ",") {
                        position += 1
                        skipBlanks()
                        (table.parent, table.name) = try readInlineKey(in: table.table)
                        break deliver
                    }
                    guard peek == UInt8(ascii: "}") else {
                        throw failure("expected ',' or '}' after a value in an inline table, found \(found())")
                    }
                    position += 1
                    open.removeLast()
                    value = .table(table.table.finish())
                }
            }
            if open.isEmpty { return value }
        }
    }

    /// `key =` inside an inline table, which must stay on one line: the
    /// table the value goes in, and its name there.
    private mutating func readInlineKey(in table: TOMLTableBuilder) throws(TOMLError) -> (TOMLTableBuilder, String) {
        let key = try readKey()
        guard peek == UInt8(ascii: "=") else {
            throw failure("expected '=' after a key, found \(found())")
        }
        position += 1
        skipBlanks()
        let parent = try dottedParent(of: key, in: table)
        return (parent, key.parts[key.parts.count - 1])
    }

    /// Between array elements: blanks, newlines and comments.
    private mutating func skipArraySpace() {
        while true {
            switch peek {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                position += 1
            case UInt8(ascii: "\r"):
                position += 2
            case UInt8(ascii: "#"):
                skipComment()
            default:
                return
            }
        }
    }

    /// A string, boolean, number, date or time.
    private mutating func readScalar() throws(TOMLError) -> ConfigValue {
        switch peek {
        case UInt8(ascii: "\""):
            if byte(at: position + 1) == UInt8(ascii: "\""), byte(at: position + 2) == UInt8(ascii: "\"") {
                return .string(try readMultilineString(quote: UInt8(ascii: "\"")))
            }
            return .string(try readBasicString())
        case UInt8(ascii: "'"):
            if byte(at: position + 1) == UInt8(ascii: "'"), byte(at: position + 2) == UInt8(ascii: "'") {
                return .string(try readMultilineString(quote: UInt8(ascii: "'")))
            }
            return .string(try readLiteralString())
        case let first where isWordByte(first):
            return try readWord()
        default:
            throw failure("expected a value, found \(found())")
        }
    }
}
