import Testing
@testable import SSVCCore

@Suite("locale from the environment")
struct LocaleSettingsTests {
    @Test("reads ll_CC.codeset@modifier", arguments: [
        (["LANG": "de_DE.UTF-8"], "de", "DE"),
        (["LANG": "tr_TR"], "tr", "TR"),
        (["LANG": "fr"], "fr", ""),
        (["LANG": "sr_RS@latin"], "sr", "RS"),
        (["LANG": "C.UTF-8"], "en", ""),
        (["LANG": "POSIX"], "en", ""),
        ([:], "en", ""),
        (["LANG": "en_US.UTF-8", "LC_MESSAGES": "pt_BR.UTF-8"], "pt", "BR"),
        (["LANG": "en_US", "LC_MESSAGES": "pt_BR", "LC_ALL": "ja_JP"], "ja", "JP"),
        (["LANG": "en_US", "LC_ALL": ""], "en", "US"),
    ])
    func reads(environment: [String: String], language: String, country: String) {
        #expect(LocaleSettings.fromEnvironment(environment) == LocaleSettings(language: language, country: country))
    }
}
