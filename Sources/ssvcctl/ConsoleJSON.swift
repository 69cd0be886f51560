import FoundationEssentials

/// JSON as ssvcctl prints it: one line, keys sorted, slashes unescaped.
enum ConsoleJSON {
    static func text(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // ssvcctl prints strings, numbers and booleans: encoding cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
