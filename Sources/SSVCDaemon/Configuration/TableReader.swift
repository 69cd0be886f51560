import SSVCCore

/// Typed reads from one TOML table, each failing with file, key and problem.
struct TableReader {
    let table: ConfigTable
    let file: String
    /// The table's own key (`daemon`), prefixed to member keys in errors.
    let key: String?

    init(_ table: ConfigTable, file: String, key: String?) {
        self.table = table
        self.file = file
        self.key = key
    }

    func error(_ member: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(file: file, key: key.map { "\($0).\(member)" } ?? member, problem: problem)
    }

    func rejectUnknown(_ known: [String]) throws(ConfigurationError) {
        for (member, _) in table where !known.contains(member) {
            let hint = KeyLocator.suggestion(for: member, among: known).map { " (did you mean `\($0)`?)" } ?? ""
            // The key is quoted cut: an error line stays short whatever the file holds.
            throw error(DisplayText.cut(member, bytes: 256), "unknown key\(hint)")
        }
    }

    private func mismatch(_ member: String, _ expected: String, _ value: ConfigValue) -> ConfigurationError {
        error(member, "expected \(expected), found \(value.type)")
    }

    func table(_ member: String) throws(ConfigurationError) -> TableReader? {
        guard let value = table[member] else { return nil }
        guard let nested = value.table else { throw mismatch(member, "a table", value) }
        return TableReader(nested, file: file, key: key.map { "\($0).\(member)" } ?? member)
    }

    func string(_ member: String) throws(ConfigurationError) -> String? {
        guard let value = table[member] else { return nil }
        guard let text = value.string else { throw mismatch(member, "a string", value) }
        return text
    }

    func bool(_ member: String) throws(ConfigurationError) -> Bool? {
        guard let value = table[member] else { return nil }
        guard let flag = value.bool else { throw mismatch(member, "true or false", value) }
        return flag
    }

    /// A path; relative ones are taken from the configuration file's folder.
    func path(_ member: String) throws(ConfigurationError) -> String? {
        guard let text = try string(member) else { return nil }
        guard !text.isEmpty else { throw error(member, "empty path") }
        if text.hasPrefix("/") { return text }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "." : folder) + "/" + text
    }

    /// An integer within `range`: every count, size and duration has one,
    /// so that no configured number reaches arithmetic that would trap.
    func integer(_ member: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = table[member] else { return nil }
        guard let number = value.int else { throw mismatch(member, "an integer", value) }
        if let problem = ConfigurationRanges.problem(number, in: range) { throw error(member, problem) }
        return number
    }

    /// A finite number within `range` (integers taken as they are).
    func number(_ member: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        guard let value = table[member] else { return nil }
        guard let number = value.double ?? value.int.map(Double.init) else { throw mismatch(member, "a number", value) }
        if let problem = ConfigurationRanges.problem(number, in: range) { throw error(member, problem) }
        return number
    }

    func choice<T: RawRepresentable & CaseIterable>(_ member: String, _ type: T.Type) throws(ConfigurationError) -> T? where T.RawValue == String {
        guard let text = try string(member) else { return nil }
        guard let value = T(rawValue: text) else {
            throw error(member, "expected one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), found '\(text)'")
        }
        return value
    }

    func stringArray(_ member: String) throws(ConfigurationError) -> [String]? {
        guard let value = table[member] else { return nil }
        guard let array = value.array else { throw mismatch(member, "an array of strings", value) }
        var strings: [String] = []
        for element in array {
            guard let text = element.string else { throw mismatch(member, "an array of strings", element) }
            strings.append(text)
        }
        return strings
    }

    func stringTable(_ member: String) throws(ConfigurationError) -> [String: String] {
        guard let nested = try table(member) else { return [:] }
        var result: [String: String] = [:]
        for (name, value) in nested.table {
            guard let text = value.string else { throw nested.mismatch(name, "a string", value) }
            result[name] = text
        }
        return result
    }
}
