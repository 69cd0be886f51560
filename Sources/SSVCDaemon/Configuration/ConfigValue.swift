import SSVCCore

/// A TOML value as the parser read it, held in plain Swift. The daemon reads
/// its configuration from these, built from the `--validate-toml` child's
/// answer, and never touches TOMLKit's objects: they allocate C++ values on
/// every read and free none (a leak per reload, found by the soak).
indirect enum ConfigValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case table(ConfigTable)
    case array([ConfigValue])
    /// Dates and times, kept as toml-test's type and text: no key takes one.
    case other(type: String, text: String)

    var string: String? { if case let .string(text) = self { text } else { nil } }
    var int: Int? { if case let .int(number) = self { number } else { nil } }
    var double: Double? { if case let .double(number) = self { number } else { nil } }
    var bool: Bool? { if case let .bool(flag) = self { flag } else { nil } }
    var table: ConfigTable? { if case let .table(table) = self { table } else { nil } }
    var array: [ConfigValue]? { if case let .array(values) = self { values } else { nil } }

    /// The type's name in errors ("expected a string, found int"), as TOMLKit named them.
    var type: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .table: "table"
        case .array: "array"
        case let .other(type, _): type == "date-local" ? "date" : type == "time-local" ? "time" : "dateTime"
        }
    }

    /// Reads toml-test's tagged JSON form: `{"type": "integer", "value":
    /// "42"}` for a scalar (both members strings, which no table's members
    /// can be), plain arrays and objects for the rest. Nil for anything else.
    init?(tagged: JSONValue) {
        switch tagged {
        case let .array(elements):
            var values: [ConfigValue] = []
            for element in elements {
                guard let value = ConfigValue(tagged: element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let .object(members):
            if members.count == 2, case let .string(type)? = tagged["type"], case let .string(text)? = tagged["value"] {
                switch type {
                case "string": self = .string(text)
                case "integer":
                    guard let number = Int(text) else { return nil }
                    self = .int(number)
                case "float":
                    guard let number = Double(text) else { return nil }
                    self = .double(number)
                case "bool": self = .bool(text == "true")
                default: self = .other(type: type, text: text)
                }
                return
            }
            var table = ConfigTable()
            for member in members {
                guard let value = ConfigValue(tagged: member.value) else { return nil }
                table.members.append((member.key, value))
            }
            self = .table(table)
        default:
            return nil
        }
    }

    /// Back to toml-test's tagged form, as `ssvcd --print-toml` prints it.
    var tagged: JSONValue {
        func scalar(_ type: String, _ text: String) -> JSONValue { .object([("type", .string(type)), ("value", .string(text))]) }
        switch self {
        case let .string(text): return scalar("string", text)
        case let .int(number): return scalar("integer", String(number))
        case let .double(number): return scalar("float", "\(number)")
        case let .bool(flag): return scalar("bool", flag ? "true" : "false")
        case let .table(table): return .object(table.members.map { ($0.key, $0.value.tagged) })
        case let .array(values): return .array(values.map(\.tagged))
        case let .other(type, text): return scalar(type, text)
        }
    }
}

/// A TOML table: its members in the parser's order.
struct ConfigTable: Sendable, Equatable, Sequence {
    var members: [(key: String, value: ConfigValue)] = []

    subscript(key: String) -> ConfigValue? {
        members.first { $0.key == key }?.value
    }

    func makeIterator() -> IndexingIterator<[(key: String, value: ConfigValue)]> {
        members.makeIterator()
    }

    static func == (a: ConfigTable, b: ConfigTable) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
