/// URLs as they may be shown: to every local user (`GetStatus`), in the
/// journal, to hooks.
public enum URLText {
    /// `url` with the password of its user information replaced by `***`:
    /// `http://alice:s3cret@host/v` → `http://alice:***@host/v`. A URL
    /// without one comes back as it is. Secrets belong in
    /// `bearer-token-file` or a credential, not in a URL.
    public static func withoutPassword(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd: String.Index = rest.firstIndex { (character: Character) -> Bool in
            character == "/" || character == "?" || character == "#"
        } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
