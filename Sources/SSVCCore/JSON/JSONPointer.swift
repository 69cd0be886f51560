/// An RFC 6901 JSON Pointer: `/info/version`, `/0/name`, `` (the whole
/// document); `~1` stands for `/` and `~0` for `~` in a reference token.
public struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// As written.
    public let description: String
    /// The reference tokens, unescaped.
    public let tokens: [String]

    /// Why a text is not a JSON Pointer.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws(SyntaxError) {
        description = text
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw SyntaxError(description: "'\(text)' is not a JSON Pointer: it must be empty or start with '/'")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaped = false
            for character in raw {
                if escaped {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: throw SyntaxError(description: "'\(text)' is not a JSON Pointer: '~' must be followed by 0 or 1")
                    }
                    escaped = false
                } else if character == "~" {
                    escaped = true
                } else {
                    token.append(character)
                }
            }
            if escaped { throw SyntaxError(description: "'\(text)' is not a JSON Pointer: '~' must be followed by 0 or 1") }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The value the pointer refers to in `root`; nil when there is none:
    /// a member that is absent, an index that is past the end, not a
    /// decimal without leading zeros, or `-`, a scalar on the way, or a
    /// `null` (which means "not given" in every format ssvc reads).
    public func resolve(_ root: JSONValue) -> JSONValue? {
        var current = root
        for token in tokens {
            switch current {
            case let .object(members):
                guard let member = members.first(where: { $0.key == token }) else { return nil }
                current = member.value
            case let .array(elements):
                guard let index = Self.index(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current == .null ? nil : current
    }

    /// `0`, or a decimal that does not start with 0 (RFC 6901, section 4).
    private static func index(_ token: String) -> Int? {
        let digits = Array(token.utf8)
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              digits.count == 1 || digits[0] != UInt8(ascii: "0")
        else { return nil }
        return Int(token)
    }
}
