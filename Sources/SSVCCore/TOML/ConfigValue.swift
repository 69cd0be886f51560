/// A TOML value held in plain Swift: what the configuration loader reads.
/// Tables keep their members in document order. Not `indirect`, as
/// `JSONValue` is not: tables and arrays already hold their members on
/// the heap, and a box per value was an allocation per key of every app
/// at a start (issue 55). A value is 33 bytes in its slot instead of a
/// pointer to a box of as many; the tables live only while a file is read.
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case table(ConfigTable)
    case array([ConfigValue])
    /// Dates and times, kept as toml-test's type and the text as written: no key takes one.
    /// The type is "datetime", "datetime-local", "date-local" or "time-local".
    case other(type: String, text: String)

    public var string: String? { if case let .string(text) = self { text } else { nil } }
    public var int: Int? { if case let .int(number) = self { number } else { nil } }
    public var double: Double? { if case let .double(number) = self { number } else { nil } }
    public var bool: Bool? { if case let .bool(flag) = self { flag } else { nil } }
    public var table: ConfigTable? { if case let .table(table) = self { table } else { nil } }
    public var array: [ConfigValue]? { if case let .array(values) = self { values } else { nil } }

    /// The type's name in errors ("expected a string, found integer"), in
    /// TOML's own words (its specification's headings, lower case).
    public var type: String {
        switch self {
        case .string: "string"
        case .int: "integer"
        case .double: "float"
        case .bool: "boolean"
        case .table: "table"
        case .array: "array"
        case let .other(type, _):
            switch type {
            case "date-local": "local date"
            case "time-local": "local time"
            case "datetime-local": "local date-time"
            default: "offset date-time"
            }
        }
    }
}
