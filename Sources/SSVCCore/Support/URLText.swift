/// URLs as they may be shown: to every local user (`GetStatus`, Watch), in
/// the journal and the log, to hooks, on standard error.
public enum URLText {
    /// `url` with the whole user information replaced by `***`:
    /// `http://alice:s3cret@host/v` → `http://***@host/v`, and
    /// `https://TOKEN@host/` → `https://***@host/`, since a user name alone
    /// is often a token. The user information is everything between `://`
    /// (or the start, for `host:port` proxy forms) and the last `@` before
    /// the path, so a URL that does not parse is masked too. A URL without
    /// one comes back as it is. Secrets belong in `bearer-token-file` or a
    /// credential, not in a URL. The one function that masks: every URL the
    /// daemon prints goes through it.
    public static func masked(_ url: String) -> String {
        let afterScheme = url.firstRange(of: "://").map(\.upperBound) ?? url.startIndex
        let rest = url[afterScheme...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<afterScheme]) + "***" + String(url[at...])
    }
}
