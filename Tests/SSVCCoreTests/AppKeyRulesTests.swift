import SSVCCore
import Testing

/// The rules ssvcd's loader and `ssvcctl evaluate` both apply; the
/// integration suite "one rule for an app key and its evaluate option"
/// runs the same values through both programs.
@Suite("app key rules")
struct AppKeyRulesTests {
    @Test("a tag pattern must compile without backtracking and capture the version", arguments: [
        ("^v(.+)$", nil),
        ("^billing-v(\\d+\\.\\d+)$", nil),
        ("v(?:\\d+)", "'v(?:\\d+)' needs a capture group for the version"),
        ("^v.+$", "'^v.+$' needs a capture group for the version"),
        ("v(", "'v(' is not a pattern ssvc matches (a regular expression without backtracking): at character 1: unbalanced parenthesis: '(' is never closed"),
    ] as [(String, String?)])
    func tagPattern(pattern: String, problem: String?) {
        #expect(AppKeyRules.tagPatternProblem(pattern) == problem)
    }

    @Test("a tag pattern with a backreference or a lookaround is refused, whatever it captures", arguments: ["^(v)\\1(.+)$", "^(?=v)(.+)$"])
    func backtracking(pattern: String) throws {
        let problem = try #require(AppKeyRules.tagPatternProblem(pattern))
        #expect(problem.hasPrefix("'\(pattern)' is not a pattern ssvc matches"), "\(problem)")
    }

    @Test("github's, json's and itunes's own keys apply to their format alone; other keys to every format")
    func formatKeys() {
        for (key, owner) in AppKeyRules.formatKeys {
            for format in ResponseFormat.allCases {
                #expect(AppKeyRules.formatProblem(key: key, format: format) == (format == owner ? nil : "applies to format \(owner.rawValue) only"))
            }
        }
        #expect(AppKeyRules.formatKeys.map(\.key) == [
            "include-prereleases", "tag-prefix", "tag-pattern",
            "version-pointer", "date-pointer", "minimum-version-pointer", "url-pointer", "rollout-percentage-pointer",
            "min-release-age-days",
        ])
        #expect(AppKeyRules.formatProblem(key: "app-id", format: .github) == nil)
    }

    @Test("json needs version-pointer; turkcell needs an app-id that is not empty")
    func neededKeys() {
        #expect(AppKeyRules.versionPointerProblem(given: false, format: .json) == "missing: format json needs it (such as \"/info/version\")")
        #expect(AppKeyRules.versionPointerProblem(given: true, format: .json) == nil)
        #expect(AppKeyRules.versionPointerProblem(given: false, format: .github) == nil)
        let turkcell = "format turkcell needs one: the document's packageName must equal it"
        #expect(AppKeyRules.appIDProblem(nil, format: .turkcell) == turkcell)
        #expect(AppKeyRules.appIDProblem("", format: .turkcell) == turkcell)
        #expect(AppKeyRules.appIDProblem("io.ssvc.demo", format: .turkcell) == nil)
        #expect(AppKeyRules.appIDProblem(nil, format: .ssvc) == nil)
    }

    @Test("numbers keep to their ranges, named in the message; infinity and NaN are never within")
    func ranges() {
        #expect(ConfigurationRanges.rolloutSeconds == 0...31_622_400)
        #expect(ConfigurationRanges.problem(31_622_400, in: ConfigurationRanges.rolloutSeconds) == nil)
        #expect(ConfigurationRanges.problem(31_622_401, in: ConfigurationRanges.rolloutSeconds) == "must be from 0 to 31622400, found 31622401")
        #expect(ConfigurationRanges.problem(0, in: ConfigurationRanges.signatureAgeDays) == "must be from 1 to 36500, found 0")
        #expect(ConfigurationRanges.problem(36_501, in: ConfigurationRanges.releaseAgeDays) == "must be from 0 to 36500, found 36501")
        #expect(ConfigurationRanges.problem(1.5, in: ConfigurationRanges.rolloutPosition) == "must be from 0 to 1, found 1.5")
        #expect(ConfigurationRanges.problem(2.0, in: ConfigurationRanges.rolloutPosition) == "must be from 0 to 1, found 2")
        #expect(ConfigurationRanges.problem(.nan, in: ConfigurationRanges.rolloutPosition) == "must be from 0 to 1, found nan")
        #expect(ConfigurationRanges.problem(.infinity, in: ConfigurationRanges.rolloutPosition) == "must be from 0 to 1, found inf")
        #expect(ConfigurationRanges.problem(1.0, in: ConfigurationRanges.rolloutPosition) == nil)
        #expect(ConfigurationRanges.problem(0.001, in: ConfigurationRanges.timeoutSeconds) == nil)
        #expect(ConfigurationRanges.problem(0, in: ConfigurationRanges.timeoutSeconds) == "must be from 0.001 to 3600, found 0")
    }

    @Test("a URL to fetch is https, http or file, whole, with no space or control character; its user information masked", arguments: [
        ("https://o.example/v.json", nil),
        ("HTTP://127.0.0.1:8080/v", nil),
        ("file:///srv/v.json", nil),
        ("ftp://h/c", "'ftp://h/c': not an https, http or file URL"),
        ("https://u:secret@o.example:99999/v", "'https://***@o.example:99999/v': port 99999 is not from 1 to 65535"),
        ("https:///v", "'https:///v': no host"),
        ("http://exa mple/x", "'http://exa mple/x': holds a space or a control character; write it percent-encoded (%20)"),
        ("file://", "'file://': not a file URL with a path"),
    ] as [(String, String?)])
    func url(url: String, problem: String?) {
        #expect(AppKeyRules.urlProblem(url) == problem)
    }

    @Test("a version package is a Debian package name, with an optional architecture", arguments: [
        ("dpkg", true), ("libc6:amd64", true), ("g++-13", true), ("Dpkg", false), ("a", false), ("dpkg:", false), ("dpkg; rm", false),
    ])
    func versionPackage(name: String, accepted: Bool) {
        let problem = AppKeyRules.versionPackageProblem(name)
        #expect(problem == (accepted ? nil : "'\(name)' is not a Debian package name (lower-case letters, digits, '+', '-', '.', and an optional ':architecture')"))
    }
}
