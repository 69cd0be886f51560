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

    @Test("numbers keep to their keys' ranges, named in the message; infinity and NaN are never within")
    func ranges() {
        #expect(AppKeys.phasedRolloutSeconds.range == 0...31_622_400)
        #expect(AppKeys.phasedRolloutSeconds.range.problem(31_622_400) == nil)
        #expect(AppKeys.phasedRolloutSeconds.range.problem(31_622_401) == "must be from 0 to 31622400, found 31622401")
        #expect(AppKeys.maxSignatureAgeDays.range.problem(0) == "must be from 1 to 36500, found 0")
        #expect(AppKeys.minReleaseAgeDays.range.problem(36_501) == "must be from 0 to 36500, found 36501")
        let position = DaemonKeys.rolloutPosition.range
        #expect(position.problem(1.5) == "must be from 0 to 1, found 1.5")
        #expect(position.problem(2.0) == "must be from 0 to 1, found 2")
        #expect(position.problem(.nan) == "must be from 0 to 1, found nan")
        #expect(position.problem(.infinity) == "must be from 0 to 1, found inf")
        #expect(position.problem(1.0) == nil)
        #expect(DaemonKeys.timeoutSeconds.range.problem(0.001) == nil)
        #expect(DaemonKeys.timeoutSeconds.range.problem(0) == "must be from 0.001 to 3600, found 0")
    }

    @Test("a key's declaration reads its value: the type, the range and a table's member named in the problem")
    func declarationsDecode() throws {
        #expect(try AppKeys.minReleaseAgeDays.decode(.int(30)) == 30)
        #expect(throws: KeyProblem("must be from 0 to 36500, found 36501")) { try AppKeys.minReleaseAgeDays.decode(.int(36_501)) }
        #expect(throws: KeyProblem("expected an integer, found string")) { try AppKeys.minReleaseAgeDays.decode(.string("30")) }
        #expect(try DaemonKeys.timeoutSeconds.decode(.int(5)) == 5.0)
        #expect(throws: KeyProblem("expected one of never, hourly, daily, weekly, monthly, found 'often'")) {
            try AppKeys.schedule.decode(.string("often"))
        }
        #expect(throws: KeyProblem(member: ".X-Fleet", "expected a string, found integer")) {
            try AppKeys.headers.decode(.table(ConfigTable([("X-Fleet", .int(1))])))
        }
        #expect(throws: KeyProblem("expected an array of strings, found integer")) { try AppKeys.publicKeys.decode(.array([.int(1)])) }
    }

    @Test("every key is declared once: no name twice within a table")
    func namesOnce() {
        for keys in [AppKeys.all + AdvisoryKeys.all, DaemonKeys.all] {
            #expect(Set(keys.map(\.name)).count == keys.count, "\(keys.map(\.name))")
        }
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
