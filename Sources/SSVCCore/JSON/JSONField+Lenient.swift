/// Turkcell's libraries read most values as strings, so documents in the
/// wild write `"maxDisplayCount": "500"` as often as `500`. These readers take
/// either spelling, and still refuse objects, arrays and nonsense by path.
extension JSONField {
    /// A string, or a number or boolean as its text.
    public func lenientString() throws(DocumentError) -> String {
        switch value {
        case let .string(text): return text
        case let .number(text): return text
        case let .bool(flag): return flag ? "true" : "false"
        default: throw mismatch("a string")
        }
    }

    /// A version string, or a number as its text, held as `versionString` holds it.
    public func lenientVersionString() throws(DocumentError) -> String {
        try Self.checkedVersion(lenientString(), at: self)
    }

    /// A non-negative integer written as a number or as a string of digits.
    public func lenientUnsignedInteger() throws(DocumentError) -> UInt64 {
        guard case let .string(text) = value else { return try unsignedInteger() }
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy(DigitRun.isDigit) else {
            throw mismatch("an unsigned integer")
        }
        guard let number = UInt64(trimmed) else {
            throw invalid("\(trimmed) is larger than \(UInt64.max)")
        }
        return number
    }

    /// `true`/`false`, `1`/`0`, or those words and digits as strings.
    public func lenientFlag() throws(DocumentError) -> Bool {
        switch value {
        case let .bool(flag): return flag
        case .number("1"): return true
        case .number("0"): return false
        case let .string(text):
            switch text.trimmingSpaces.lowercased() {
            case "true", "1": return true
            case "false", "0", "": return false
            default: break
            }
        default: break
        }
        throw mismatch("true, false, 1 or 0")
    }
}

extension StringProtocol {
    /// Without leading and trailing white space.
    var trimmingSpaces: String {
        let text = String(self)
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
