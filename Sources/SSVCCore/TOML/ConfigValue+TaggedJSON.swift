extension ConfigValue {
    /// toml-test's tagged JSON: `{"type":"integer","value":"42"}` for each
    /// scalar, plain arrays and objects for the rest, keys in document order.
    /// Written with its own stack, so any depth of tree prints.
    public var taggedJSON: String {
        var out = ""
        var pending: [Piece] = [.value(self)]
        while let piece = pending.popLast() {
            switch piece {
            case let .text(text):
                out += text
            case let .value(.table(table)):
                out += "{"
                pending.append(.text("}"))
                for (index, member) in table.members.enumerated().reversed() {
                    pending.append(.value(member.value))
                    pending.append(.text((index > 0 ? "," : "") + TOMLText.quoted(member.key) + ":"))
                }
            case let .value(.array(values)):
                out += "["
                pending.append(.text("]"))
                for (index, value) in values.enumerated().reversed() {
                    pending.append(.value(value))
                    if index > 0 { pending.append(.text(",")) }
                }
            case let .value(value):
                out += value.taggedScalar
            }
        }
        return out
    }

    /// What is left to print: a value, or punctuation around one.
    private enum Piece {
        case value(ConfigValue)
        case text(String)
    }

    private var taggedScalar: String {
        let (type, text): (String, String)
        switch self {
        case let .string(string): (type, text) = ("string", string)
        case let .int(number): (type, text) = ("integer", String(number))
        case let .double(number): (type, text) = ("float", TOMLText.float(number))
        case let .bool(flag): (type, text) = ("bool", flag ? "true" : "false")
        case let .other(otherType, otherText): (type, text) = (otherType, otherText)
        case .table, .array: return ""
        }
        return "{\"type\":" + TOMLText.quoted(type) + ",\"value\":" + TOMLText.quoted(text) + "}"
    }
}

extension ConfigTable {
    /// The table as toml-test's tagged JSON object (see `ConfigValue.taggedJSON`).
    public var taggedJSON: String {
        ConfigValue.table(self).taggedJSON
    }
}
