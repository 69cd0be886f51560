/// The language and country a machine reports to version servers.
public struct LocaleSettings: Sendable, Equatable {
    /// ISO 639 language code, lower case (`en`).
    public var language: String
    /// ISO 3166 country code, upper case (`DE`); empty when unknown.
    public var country: String

    public init(language: String, country: String) {
        self.language = language
        self.country = country
    }

    /// From the first set of `LC_ALL`, `LC_MESSAGES`, `LANG` (POSIX's order of
    /// precedence), read as `ll[_CC][.codeset][@modifier]`; `en` and no country
    /// for `C`, `POSIX` or anything unreadable.
    public static func fromEnvironment(_ environment: [String: String]) -> LocaleSettings {
        let fallback = LocaleSettings(language: "en", country: "")
        guard let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy
            .compactMap({ environment[$0] }).first(where: { !$0.isEmpty })
        else { return fallback }
        let name = value.prefix { $0 != "." && $0 != "@" }
        let parts = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        let language = parts[0]
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return fallback
        }
        var country = parts.count > 1 ? parts[1] : ""
        if !(country.count == 2 && country.allSatisfy({ $0.isASCII && $0.isLetter })) { country = "" }
        return LocaleSettings(language: language.lowercased(), country: country.uppercased())
    }
}
