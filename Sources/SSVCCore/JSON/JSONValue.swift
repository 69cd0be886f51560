/// A parsed JSON document that keeps what typed decoding throws away: the
/// order of object keys (Turkcell's "last wildcard wins") and the exact text
/// of numbers (so an error can say `found -5` rather than "not valid JSON").
/// Not `indirect`: arrays and objects already hold their elements on the
/// heap, and boxing every scalar besides cost a large document 60 bytes a
/// value (issue 51); a value lives in its array's slot, at most 24 bytes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written in the document.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order. Keys are unique (the parser rejects duplicates).
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member named `key`, or nil when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A short description of the value's kind and, for scalars, the value:
    /// used in error messages ("found -5", "found an array").
    public var summary: String {
        switch self {
        case .null: "null"
        case let .bool(b): b ? "true" : "false"
        case let .number(text): text.count > 40 ? String(text.prefix(40)) + "…" : text
        case let .string(s): "the string \"\(DisplayText.escaped(s, limit: 40))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
