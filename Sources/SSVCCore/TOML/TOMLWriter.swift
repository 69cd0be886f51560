/// Prints a `ConfigTable` as TOML text that reads back as the same tree,
/// members in the same order. Each root member is one line; a table is
/// written through dotted keys (`daemon.socket = "…"`) so the order of its
/// members survives, and arrays and the tables inside them are written
/// inline. Dates and times are written as their text, which must be TOML.
/// Recursion goes as deep as the tree, which the parser bounds.
public enum TOMLWriter {
    public static func write(_ table: ConfigTable) -> String {
        var out = ""
        for member in table.members {
            writeMember(TOMLText.key(member.key), member.value, to: &out)
        }
        return out
    }

    private static func writeMember(_ path: String, _ value: ConfigValue, to out: inout String) {
        if case let .table(table) = value, !table.members.isEmpty {
            for member in table.members {
                writeMember(path + "." + TOMLText.key(member.key), member.value, to: &out)
            }
        } else {
            out += path + " = "
            writeInline(value, to: &out)
            out += "\n"
        }
    }

    private static func writeInline(_ value: ConfigValue, to out: inout String) {
        switch value {
        case let .string(text): out += TOMLText.quoted(text)
        case let .int(number): out += String(number)
        case let .double(number): out += TOMLText.float(number)
        case let .bool(flag): out += flag ? "true" : "false"
        case let .other(_, text): out += text
        case let .array(values):
            out += "["
            for (index, element) in values.enumerated() {
                if index > 0 { out += ", " }
                writeInline(element, to: &out)
            }
            out += "]"
        case let .table(table):
            out += "{"
            for (index, member) in table.members.enumerated() {
                out += index > 0 ? ", " : " "
                out += TOMLText.key(member.key) + " = "
                writeInline(member.value, to: &out)
            }
            out += table.members.isEmpty ? "}" : " }"
        }
    }
}
