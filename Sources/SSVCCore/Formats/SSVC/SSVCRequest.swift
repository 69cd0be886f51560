/// The request SSVC sends: the configured URL with the running version,
/// locale and protocol version added to its query.
public enum SSVCRequest {
    public static let clientProtocolVersion = 1

    /// `base` + `?` (or `&`) + the five SSVC parameters, then `extraQuery` in
    /// the order given. An unknown running number is sent as `0`, SSVC's
    /// "no version number".
    public static func url(
        base: String, running: RunningVersion, locale: LocaleSettings,
        extraQuery: [(name: String, value: String)] = []
    ) -> String {
        PercentEncoding.appendingQuery(to: base, [
            ("SSVCLatestVersionKey", running.key),
            ("SSVCLatestVersionNumber", String(running.number ?? 0)),
            ("SSVCLanguage", locale.language),
            ("SSVCCountry", locale.country),
            ("SSVCClientProtocolVersion", String(clientProtocolVersion)),
        ] + extraQuery)
    }
}
