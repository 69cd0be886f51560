/// An entry's texts by language: `en`, `tr`, …, and the wildcards `*` and `""`.
public struct TurkcellDescriptions: Sendable, Equatable {
    /// In document order, keys lower-cased.
    public let entries: [(language: String, description: UpdateDescription)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.language == $1.language && $0.description == $1.description }
    }

    /// An object of language → description; a description may be a plain
    /// string, which means `{"message": string}`.
    init(_ field: JSONField?) throws(DocumentError) {
        guard let field else {
            entries = []
            return
        }
        var entries: [(String, UpdateDescription)] = []
        for (language, value) in try field.members() {
            let description: UpdateDescription
            switch value.value {
            case let .string(message):
                description = UpdateDescription(message: message)
            case .object:
                description = UpdateDescription(
                    message: try value.member("message")?.lenientString(),
                    whatIsNew: try value.member("whatIsNew")?.lenientString(),
                    warnings: try value.member("warnings")?.lenientString(),
                    title: try value.member("title")?.lenientString()
                )
            default:
                throw value.mismatch("an object or a string")
            }
            entries.append((language.lowercased(), description))
        }
        self.entries = entries
    }

    /// The exact language first; else the last wildcard (`*` or `""`).
    public func select(language: String) -> UpdateDescription? {
        let language = language.lowercased()
        if let exact = entries.first(where: { $0.language == language && !Self.isWildcard($0.language) }) {
            return exact.description
        }
        return entries.last { Self.isWildcard($0.language) }?.description
    }

    private static func isWildcard(_ language: String) -> Bool {
        language == "*" || language.isEmpty
    }
}
