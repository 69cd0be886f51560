extension StringProtocol {
    /// The text without any of `characters` at either end, without
    /// Foundation (whose `trimmingCharacters(in:)` wants a `CharacterSet`).
    public func trimming(_ characters: String) -> String {
        let set = Set(characters)
        guard let first = firstIndex(where: { !set.contains($0) }),
              let last = lastIndex(where: { !set.contains($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension Array where Element == UInt8 {
    /// The bytes without ASCII white space (space, tab, CR, LF, VT, FF) at either end.
    func trimmingASCIIWhitespace() -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return [] }
        return self[first...last]
    }
}
