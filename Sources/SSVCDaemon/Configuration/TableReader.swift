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

    func error<Value>(_ key: ConfigurationKey<Value>, _ problem: String) -> ConfigurationError {
        error(key.name, problem)
    }

    /// The value set for `key`, nil when it is not set.
    func read<Value>(_ key: ConfigurationKey<Value>) throws(ConfigurationError) -> Value? {
        guard let value = table[key.name] else { return nil }
        do {
            return try key.decode(value)
        } catch {
            throw self.error(key.name + error.member, error.description)
        }
    }

    /// The value set for `key`, else its default; an error naming the key
    /// when it has neither.
    func value<Value>(_ key: ConfigurationKey<Value>) throws(ConfigurationError) -> Value {
        guard let value = try read(key) ?? key.defaultValue else { throw error(key.name, "missing") }
        return value
    }

    /// A path, read through its key (so held to the key's rules); relative
    /// ones are taken from the configuration file's folder.
    func path(_ key: ConfigurationKey<String>) throws(ConfigurationError) -> String? {
        guard let text = try read(key) else { return nil }
        guard !text.isEmpty else { throw error(key, "empty path") }
        if text.hasPrefix("/") { return text }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "." : folder) + "/" + text
    }

    /// A path key's value, given or its default; relative paths are taken
    /// from the configuration file's folder.
    func pathValue(_ key: ConfigurationKey<String>) throws(ConfigurationError) -> String {
        if let given = try path(key) { return given }
        return try value(key)
    }

    func rejectUnknown(_ known: [KeyEntry]) throws(ConfigurationError) {
        try rejectUnknown(known.map(\.name))
    }

    func rejectUnknown(_ known: [String]) throws(ConfigurationError) {
        for (member, _) in table where !known.contains(member) { throw unknown(member, among: known) }
    }

    /// For the keys every app's table is held to (1,000 apps at a start).
    func rejectUnknown(_ known: KeyNames) throws(ConfigurationError) {
        for (member, _) in table where !known.set.contains(member) { throw unknown(member, among: known.list) }
    }

    private func unknown(_ member: String, among known: [String]) -> ConfigurationError {
        // `"" = 1` is a key TOML allows and no table here has.
        if member.isEmpty { return error("\"\"", "an empty key: no key here is empty") }
        let hint = KeyLocator.suggestion(for: member, among: known).map { " (did you mean `\($0)`?)" } ?? ""
        // The key is quoted cut: an error line stays short whatever the file holds.
        return error(DisplayText.cut(member, bytes: 256), "unknown key\(hint)")
    }

    private func mismatch(_ member: String, _ expected: String, _ value: ConfigValue) -> ConfigurationError {
        error(member, "expected \(expected), found \(value.type)")
    }

    func table(_ member: String) throws(ConfigurationError) -> TableReader? {
        guard let value = table[member] else { return nil }
        guard let nested = value.table else { throw mismatch(member, "a table", value) }
        return TableReader(nested, file: file, key: key.map { "\($0).\(member)" } ?? member)
    }

    /// A string member of a table no key declares (an `ignore-advisories`
    /// entry's), held to the rule every string value keeps.
    func string(_ member: String) throws(ConfigurationError) -> String? {
        guard let value = table[member] else { return nil }
        guard let text = value.string else { throw mismatch(member, "a string", value) }
        if let problem = ConfigurationKey<String>.controlProblem(text) { throw error(member, problem) }
        return text
    }
}

/// Key names as a table's keys are checked against them: a set to look
/// each member up in, and the list in its order, for "did you mean".
struct KeyNames {
    let list: [String]
    let set: Set<String>

    init(_ entries: [KeyEntry]) {
        list = entries.map(\.name)
        set = Set(list)
    }
}
