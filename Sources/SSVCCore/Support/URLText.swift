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
        // Over the bytes: String's `firstRange(of:)` took 4.5 µs a URL,
        // and every report asks (issue 55).
        let bytes = Array(url.utf8)
        var afterScheme = 0
        if bytes.count >= 3 {
            for index in 0...(bytes.count - 3) where bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] == UInt8(ascii: "/") {
                afterScheme = index + 3
                break
            }
        }
        let authorityEnd = bytes[afterScheme...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        guard let at = bytes[afterScheme..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return url }
        return String(decoding: bytes[..<afterScheme], as: UTF8.self) + "***" + String(decoding: bytes[at...], as: UTF8.self)
    }
}
