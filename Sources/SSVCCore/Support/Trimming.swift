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
