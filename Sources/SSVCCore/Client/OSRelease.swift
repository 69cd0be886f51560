/// os-release(5): shell-style `KEY=value` lines, values optionally quoted.
public enum OSRelease {
    public static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingSpaces
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals])
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { continue }
            fields[key] = unquote(line[line.index(after: equals)...])
        }
        return fields
    }

    /// Removes matching outer quotes; inside double quotes, `\` escapes
    /// `"`, `\`, `$` and `` ` `` as the shell does.
    private static func unquote(_ value: Substring) -> String {
        guard let quote = value.first, quote == "\"" || quote == "'", value.count >= 2, value.last == quote else {
            return String(value)
        }
        let inner = value.dropFirst().dropLast()
        guard quote == "\"" else { return String(inner) }
        var result = ""
        var escaping = false
        for character in inner {
            if escaping {
                if !"\"\\$`".contains(character) { result.append("\\") }
                result.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result.append("\\") }
        return result
    }
}
