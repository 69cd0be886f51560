@testable import SSVCCore

/// Scalar-offset ranges of each group, nil for a group that did not take part.
typealias Groups = [Range<Int>?]

func offsets(_ text: String, _ parts: [Substring?]) -> Groups {
    parts.map { part in
        part.map {
            let s = text.unicodeScalars
            return s.distance(from: s.startIndex, to: $0.startIndex)..<s.distance(from: s.startIndex, to: $0.endIndex)
        }
    }
}

func linear(_ pattern: String, _ text: String) throws -> Groups? {
    try LinearPattern(pattern).firstMatch(in: text).map { offsets(text, $0) }
}

/// Swift's own Regex, with simple (\w-based) word boundaries like ours.
func reference(_ pattern: String, _ text: String) throws -> Groups? {
    let regex = try Regex(pattern).wordBoundaryKind(.simple)
    return reference(regex, text)
}

func reference(_ regex: Regex<AnyRegexOutput>, _ text: String) -> Groups? {
    guard let match = text.firstMatch(of: regex) else { return nil }
    return offsets(text, (0..<match.output.count).map { match.output[$0].substring })
}

/// The plain strings of a match, for readable expectations.
func strings(_ pattern: String, _ text: String) throws -> [String?]? {
    try LinearPattern(pattern).firstMatch(in: text)?.map { $0.map(String.init) }
}
