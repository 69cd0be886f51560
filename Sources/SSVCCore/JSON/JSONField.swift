/// A value inside a document together with where it is, so that every typed
/// read can fail with an error naming the path (`updates[2].filters.deviceOsVersion`).
public struct JSONField: Sendable {
    public let value: JSONValue
    /// Dotted path from the root; empty for the root itself.
    public let path: String

    public init(root: JSONValue) {
        self.value = root
        self.path = ""
    }

    package init(value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    /// The member `key` of this object; nil when absent or `null` (JSON's null
    /// means "not given" in every format ssvc reads).
    public func member(_ key: String) -> JSONField? {
        guard let child = value[key], child != .null else { return nil }
        return JSONField(value: child, path: path.isEmpty ? key : "\(path).\(key)")
    }

    /// The members of an object in document order, `null` values left out.
    public func members() throws(DocumentError) -> [(key: String, field: JSONField)] {
        guard case let .object(members) = value else { throw mismatch("an object") }
        return members.compactMap { member in
            member.value == .null
                ? nil
                : (member.key, JSONField(value: member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)"))
        }
    }

    /// The elements of an array, each with its index in the path.
    public func elements() throws(DocumentError) -> [JSONField] {
        guard case let .array(elements) = value else { throw mismatch("an array") }
        return elements.enumerated().map { JSONField(value: $1, path: "\(path)[\($0)]") }
    }

    public func requireObject() throws(DocumentError) {
        guard case .object = value else { throw mismatch("an object") }
    }

    public func string() throws(DocumentError) -> String {
        guard case let .string(text) = value else { throw mismatch("a string") }
        return text
    }

    /// A JSON number written as a plain non-negative integer that fits 64 bits.
    /// `1.0`, `1e3` and `-1` are refused: a version number is an integer, and a
    /// server that writes it otherwise has a bug worth hearing about.
    public func unsignedInteger() throws(DocumentError) -> UInt64 {
        guard case let .number(text) = value,
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { throw mismatch("an unsigned integer") }
        guard let number = UInt64(text) else {
            throw DocumentError(path: path, problem: "\(value.summary) is larger than \(UInt64.max)")
        }
        return number
    }

    /// A rollout percentage: a JSON number from 0 to 100, fractions
    /// allowed. A number too large for a Double (`1e400`) is refused, not
    /// read as infinity.
    public func percentage() throws(DocumentError) -> Double {
        guard case let .number(text) = value else { throw mismatch("a number from 0 to 100") }
        guard let number = Double(text), number.isFinite, (0...100).contains(number) else {
            throw invalid("\(value.summary) is not a percentage from 0 to 100")
        }
        return number
    }

    /// A boolean written as `true`/`false` or as the numbers `0`/`1`.
    public func flag() throws(DocumentError) -> Bool {
        switch value {
        case let .bool(flag): return flag
        case .number("0"): return false
        case .number("1"): return true
        default: throw mismatch("true, false, 0 or 1")
        }
    }

    /// A version string: at most 256 bytes, without control or
    /// bidirectional formatting characters (`DisplayText.versionProblem`).
    public func versionString() throws(DocumentError) -> String {
        try Self.checkedVersion(string(), at: self)
    }

    static func checkedVersion(_ text: String, at field: JSONField) throws(DocumentError) -> String {
        if let problem = DisplayText.versionProblem(text) { throw field.invalid("not a version string: \(problem)") }
        return text
    }

    public func mismatch(_ expected: String) -> DocumentError {
        DocumentError(path: path, problem: "expected \(expected), found \(value.summary)")
    }

    public func invalid(_ problem: String) -> DocumentError {
        DocumentError(path: path, problem: problem)
    }
}

/// A document that is valid JSON but not what its format expects.
public struct DocumentError: Error, Equatable, CustomStringConvertible {
    /// Where: a dotted path, empty for the document root.
    public let path: String
    public let problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path.isEmpty ? "document" : path): \(problem)" }
}
