/// One configuration key, declared once (as swift-argument-parser's
/// `@Option` declares an option): its name, the value it takes as
/// ssvcd.toml(5) writes it, the range of a number, its default and one
/// line saying what it does. ssvcd's loader reads through the declaration,
/// `ssvcctl evaluate` checks the options named after app keys with it,
/// `--check-config` suggests among the declared names, and a test holds
/// each entry of ssvcd.toml(5) to it.
package struct ConfigurationKey<Value: Sendable>: Sendable {
    package let name: String
    package let form: KeyForm
    /// The value when the key is not set; nil when there is none, or when
    /// it depends on other keys (the manual page says on which).
    package let defaultValue: Value?
    /// What the key does, in one line.
    package let summary: String
    private let decoder: @Sendable (ConfigValue) -> Result<Value, KeyProblem>

    private init(
        _ name: String, form: KeyForm, default defaultValue: Value?, summary: String,
        decode: @escaping @Sendable (ConfigValue) -> Result<Value, KeyProblem>
    ) {
        self.name = name
        self.form = form
        self.defaultValue = defaultValue
        self.summary = summary
        self.decoder = decode
    }

    /// `value` as this key's value, or why it is not one (the key's name
    /// left out).
    package func decode(_ value: ConfigValue) throws(KeyProblem) -> Value {
        try decoder(value).get()
    }

    /// The declaration without its type, for lists of keys.
    package var entry: KeyEntry {
        let defaultValue = defaultValue
        return KeyEntry(name: name, form: form, summary: summary) { defaultValue.flatMap { KeyEntry.text($0) } }
    }

    /// Why no value may hold `text`: a C1 control (U+0080 to U+009F),
    /// which TOML lets through raw and a terminal obeys (U+009B begins a
    /// control sequence), named by its code point. Nil when it holds none.
    package static func controlProblem(_ text: String) -> String? {
        guard let bad = text.unicodeScalars.first(where: { (0x80...0x9F).contains($0.value) }) else { return nil }
        let hex = String(bad.value, radix: 16, uppercase: true)
        return "holds the control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)"
    }

    private static func mismatch(_ expected: String, _ value: ConfigValue) -> KeyProblem {
        KeyProblem("expected \(expected), found \(value.type)")
    }
}

extension ConfigurationKey where Value == String {
    package init(_ name: String, _ summary: String) {
        self.init(name, .string, summary)
    }

    package init(_ name: String, default defaultValue: String, _ summary: String) {
        self.init(name, .string, default: defaultValue, summary)
    }

    /// A string key; `form` says what the string is (a path, a URL, a name…).
    package init(_ name: String, _ form: KeyForm, default defaultValue: String? = nil, _ summary: String) {
        self.init(name, form: form, default: defaultValue, summary: summary) { value in
            guard let text = value.string else { return .failure(Self.mismatch("a string", value)) }
            if let problem = Self.controlProblem(text) { return .failure(KeyProblem(problem)) }
            return .success(text)
        }
    }
}

extension ConfigurationKey where Value == Bool {
    package init(_ name: String, default defaultValue: Bool, _ summary: String) {
        self.init(name, form: .boolean, default: defaultValue, summary: summary) { value in
            if let flag = value.bool { return .success(flag) }
            return .failure(Self.mismatch("true or false", value))
        }
    }
}

extension ConfigurationKey where Value == Int {
    /// An integer within `range`: every count, size and duration has one,
    /// so that no configured number reaches arithmetic that would trap.
    package init(_ name: String, range: ClosedRange<Int>, default defaultValue: Int? = nil, _ summary: String) {
        self.init(name, form: .integer(range), default: defaultValue, summary: summary) { value in
            guard let number = value.int else { return .failure(Self.mismatch("an integer", value)) }
            if let problem = range.problem(number) { return .failure(KeyProblem(problem)) }
            return .success(number)
        }
    }

    package var range: ClosedRange<Int> {
        if case let .integer(range) = form { return range }
        return Int.min...Int.max
    }
}

extension ConfigurationKey where Value == Double {
    /// A finite number within `range`; an integer is taken as it is.
    package init(_ name: String, range: ClosedRange<Double>, default defaultValue: Double? = nil, _ summary: String) {
        self.init(name, form: .number(range), default: defaultValue, summary: summary) { value in
            guard let number = value.double ?? value.int.map(Double.init) else { return .failure(Self.mismatch("a number", value)) }
            if let problem = range.problem(number) { return .failure(KeyProblem(problem)) }
            return .success(number)
        }
    }

    package var range: ClosedRange<Double> {
        if case let .number(range) = form { return range }
        return -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    }
}

extension ConfigurationKey where Value == [String] {
    package init(_ name: String, _ summary: String) {
        self.init(name, .strings, summary)
    }

    /// An array of strings; `form` says what each is.
    package init(_ name: String, _ form: KeyForm, _ summary: String) {
        self.init(name, form: form, default: nil, summary: summary) { value in
            guard let array = value.array else { return .failure(Self.mismatch("an array of strings", value)) }
            var strings: [String] = []
            for (index, element) in array.enumerated() {
                guard let text = element.string else { return .failure(Self.mismatch("an array of strings", element)) }
                if let problem = Self.controlProblem(text) { return .failure(KeyProblem(member: "[\(index)]", problem)) }
                strings.append(text)
            }
            return .success(strings)
        }
    }
}

extension ConfigurationKey where Value == [String: String] {
    /// A table of strings, such as `headers`: a value that is no string is
    /// named with its key (`headers.X-Fleet`).
    package init(table name: String, _ summary: String) {
        self.init(name, form: .table, default: [:], summary: summary) { value in
            guard let table = value.table else { return .failure(Self.mismatch("a table", value)) }
            var result: [String: String] = [:]
            for (member, element) in table {
                guard let text = element.string else {
                    return .failure(KeyProblem(member: ".\(member)", "expected a string, found \(element.type)"))
                }
                if let problem = Self.controlProblem(text) { return .failure(KeyProblem(member: ".\(member)", problem)) }
                result[member] = text
            }
            return .success(result)
        }
    }
}

extension ConfigurationKey where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of `Value`'s cases, by its raw value.
    package init(_ name: String, default defaultValue: Value? = nil, _ summary: String) {
        self.init(name, form: .choice(Value.allCases.map(\.rawValue)), default: defaultValue, summary: summary) { value in
            guard let text = value.string else { return .failure(Self.mismatch("a string", value)) }
            guard let choice = Value(rawValue: text) else {
                let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(KeyProblem("expected one of \(known), found '\(DisplayText.cut(text, bytes: 256))'"))
            }
            return .success(choice)
        }
    }
}

/// What a key takes, as ssvcd.toml(5) writes it after `*key* =`.
package enum KeyForm: Sendable, Equatable {
    case string, name, path, url, boolean, strings, table, pointer, pattern, version, versions
    case integer(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    case choice([String])
    /// Any other value, written as the manual page writes it.
    case written(String)

    package var manual: String {
        switch self {
        case .string: "_string_"
        case .name: "_name_"
        case .path: "_path_"
        case .url: "_URL_"
        case .boolean: "_boolean_"
        case .strings: "_array of strings_"
        case .table: "_table of strings_"
        case .pointer: "_JSON Pointer_"
        case .pattern: "_regular expression_"
        case .version: "_version_"
        case .versions: "[ _version_, ... ]"
        case .integer: "_integer_"
        case .number: "_number_"
        case let .choice(values): values.map { "_\($0)_" }.joined(separator: " | ")
        case let .written(text): text
        }
    }
}

/// A key's declaration without its value's type: lists of keys (the
/// known keys of a table, suggestions, the manual page's test).
package struct KeyEntry: Sendable, Equatable {
    package let name: String
    package let form: KeyForm
    package let summary: String
    /// Made only when asked (the manual's test, `ssvcctl evaluate`): its
    /// dynamic casts cost each start a millisecond when the loader, which
    /// wants only the names, built its lists of keys (issue 55).
    private let makeDefaultText: @Sendable () -> String?

    init(name: String, form: KeyForm, summary: String, defaultText: @escaping @Sendable () -> String?) {
        self.name = name
        self.form = form
        self.summary = summary
        self.makeDefaultText = defaultText
    }

    /// The default as text (`30`, `daily`, `false`); nil without one.
    package var defaultText: String? { makeDefaultText() }

    package static func == (left: KeyEntry, right: KeyEntry) -> Bool {
        left.name == right.name && left.form == right.form && left.summary == right.summary && left.defaultText == right.defaultText
    }

    /// `30` for 30.0, a choice by its raw value, anything else as Swift
    /// prints it; nil for an empty table, which is no default to speak of.
    static func text(_ value: some Sendable) -> String? {
        switch value {
        case let number as Double: Double.rangeText(number)
        case let choice as any RawRepresentable: "\(choice.rawValue)"
        case let table as [String: String] where table.isEmpty: nil
        default: "\(value)"
        }
    }
}

/// Why a value will not do for a key, in words that leave out the key's
/// name; `member` is what follows the name for a part of the value
/// (`.X-Fleet` of `headers`).
package struct KeyProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package let member: String
    package let description: String

    package init(member: String = "", _ description: String) {
        self.member = member
        self.description = description
    }
}

extension ClosedRange where Bound == Int {
    /// Why `number` is refused by a key of this range; nil when within.
    package func problem(_ number: Int) -> String? {
        contains(number) ? nil : "must be from \(lowerBound) to \(upperBound), found \(number)"
    }
}

extension ClosedRange where Bound == Double {
    /// The same for a number that may have a fraction: infinity and NaN
    /// are never within.
    package func problem(_ number: Double) -> String? {
        number.isFinite && contains(number)
            ? nil : "must be from \(Double.rangeText(lowerBound)) to \(Double.rangeText(upperBound)), found \(Double.rangeText(number))"
    }
}

extension Double {
    /// 30 for 30.0, 0.001 as it is.
    static func rangeText(_ number: Double) -> String {
        number.isFinite && number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
    }
}

extension ConfigurationKey where Value == ConfigValue {
    /// A key whose value its reader takes apart itself (`ignore-advisories`:
    /// ids and tables in one array).
    package init(_ name: String, _ form: KeyForm, _ summary: String) {
        self.init(name, form: form, default: nil, summary: summary) { .success($0) }
    }
}
