import Foundation
import SSVCTestSupport
import Testing

/// An app key and the `ssvcctl evaluate` option named after it refuse the
/// same values in the same words: the configuration loader's message after
/// `key: ` is evaluate's after `--key: `.
@Suite("one rule for an app key and its evaluate option", .processSlot)
struct SharedAppKeyRulesTests {
    /// A value both programs must refuse. `app` is the app file (in the
    /// apps directory, so the loader names the key bare), `daemon` the
    /// `[daemon]` lines, `options` evaluate's after `--response -`.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let key: String
        var app = Self.app("")
        var daemon = ""
        let options: [String]
        let problem: String

        /// An app file that loads, with `lines` added.
        static func app(_ lines: String) -> String {
            "url = \"https://o.example/v\"\nversion = \"1.0\"\n" + lines
        }

        static let version = ["--version", "1.0"]
        static let publicKey = "RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw"
    }

    static let refusals: [Refusal] = [
        Refusal(
            testDescription: "a max-version that is no version in the scheme", key: "max-version",
            app: Refusal.app("version-scheme = \"semver\"\nversion = \"1.0.0\"\nmax-version = \"2.x\"\n").replacingOccurrences(of: "version = \"1.0\"\n", with: ""),
            options: ["--version", "1.0.0", "--version-scheme", "semver", "--max-version", "2.x"],
            problem: "'2.x' is not a valid semver version: expected MAJOR.MINOR.PATCH"
        ),
        Refusal(
            testDescription: "a tag-pattern without a capture group", key: "tag-pattern",
            app: Refusal.app("format = \"github\"\ntag-pattern = \"v(?:[0-9]+)\"\n"),
            options: Refusal.version + ["--format", "github", "--tag-pattern", "v(?:[0-9]+)"],
            problem: "'v(?:[0-9]+)' needs a capture group for the version"
        ),
        Refusal(
            testDescription: "phased-rollout-seconds past 366 days", key: "phased-rollout-seconds",
            app: Refusal.app("phased-rollout-seconds = 31622401\n"),
            options: Refusal.version + ["--phased-rollout-seconds", "31622401"],
            problem: "must be from 0 to 31622400, found 31622401"
        ),
        Refusal(
            testDescription: "a tag-pattern that does not compile", key: "tag-pattern",
            app: Refusal.app("format = \"github\"\ntag-pattern = \"v(\"\n"),
            options: Refusal.version + ["--format", "github", "--tag-pattern", "v("],
            problem: "'v(' is not a pattern ssvc matches (a regular expression without backtracking): at character 1: unbalanced parenthesis: '(' is never closed"
        ),
        Refusal(
            testDescription: "a negative phased-rollout-seconds", key: "phased-rollout-seconds",
            app: Refusal.app("phased-rollout-seconds = -1\n"),
            options: Refusal.version + ["--phased-rollout-seconds=-1"],
            problem: "must be from 0 to 31622400, found -1"
        ),
        Refusal(
            testDescription: "a negative version-number", key: "version-number",
            app: Refusal.app("version-number = -1\n"),
            options: Refusal.version + ["--version-number=-1"],
            problem: "must be from 0 to 9223372036854775807, found -1"
        ),
        Refusal(
            testDescription: "rollout-position past 1", key: "rollout-position",
            daemon: "rollout-position = 1.5\n",
            options: Refusal.version + ["--rollout-position", "1.5"],
            problem: "must be from 0 to 1, found 1.5"
        ),
        Refusal(
            testDescription: "rollout-position of 2, shown whole", key: "rollout-position",
            daemon: "rollout-position = 2.0\n",
            options: Refusal.version + ["--rollout-position", "2.0"],
            problem: "must be from 0 to 1, found 2"
        ),
        Refusal(
            testDescription: "max-response-bytes of 0", key: "max-response-bytes",
            daemon: "max-response-bytes = 0\n",
            options: Refusal.version + ["--max-response-bytes", "0"],
            problem: "must be from 1 to 67108864, found 0"
        ),
        Refusal(
            testDescription: "max-signature-age-days of 0", key: "max-signature-age-days",
            app: Refusal.app("public-keys = [\"\(Refusal.publicKey)\"]\nmax-signature-age-days = 0\n"),
            options: Refusal.version + ["--public-key", Refusal.publicKey, "--signature", "/dev/null", "--max-signature-age-days", "0"],
            problem: "must be from 1 to 36500, found 0"
        ),
        Refusal(
            testDescription: "max-signature-age-days past 100 years", key: "max-signature-age-days",
            app: Refusal.app("public-keys = [\"\(Refusal.publicKey)\"]\nmax-signature-age-days = 36501\n"),
            options: Refusal.version + ["--public-key", Refusal.publicKey, "--signature", "/dev/null", "--max-signature-age-days", "36501"],
            problem: "must be from 1 to 36500, found 36501"
        ),
        Refusal(
            testDescription: "min-release-age-days past 100 years", key: "min-release-age-days",
            app: Refusal.app("format = \"itunes\"\nmin-release-age-days = 36501\n"),
            options: Refusal.version + ["--format", "itunes", "--min-release-age-days", "36501"],
            problem: "must be from 0 to 36500, found 36501"
        ),
        Refusal(
            testDescription: "min-release-age-days for another format", key: "min-release-age-days",
            app: Refusal.app("min-release-age-days = 7\n"),
            options: Refusal.version + ["--min-release-age-days", "7"],
            problem: "applies to format itunes only"
        ),
        Refusal(
            testDescription: "a github key for format ssvc", key: "tag-prefix",
            app: Refusal.app("tag-prefix = \"release-\"\n"),
            options: Refusal.version + ["--tag-prefix", "release-"],
            problem: "applies to format github only"
        ),
        Refusal(
            testDescription: "include-prereleases for format json", key: "include-prereleases",
            app: Refusal.app("format = \"json\"\nversion-pointer = \"/v\"\ninclude-prereleases = true\n"),
            options: Refusal.version + ["--format", "json", "--version-pointer", "/v", "--include-prereleases"],
            problem: "applies to format github only"
        ),
        Refusal(
            testDescription: "a json key for format github", key: "url-pointer",
            app: Refusal.app("format = \"github\"\nurl-pointer = \"/url\"\n"),
            options: Refusal.version + ["--format", "github", "--url-pointer", "/url"],
            problem: "applies to format json only"
        ),
        Refusal(
            testDescription: "format json without version-pointer", key: "version-pointer",
            app: Refusal.app("format = \"json\"\n"),
            options: Refusal.version + ["--format", "json"],
            problem: "missing: format json needs it (such as \"/info/version\")"
        ),
        Refusal(
            testDescription: "a version-pointer that is no JSON Pointer", key: "version-pointer",
            app: Refusal.app("format = \"json\"\nversion-pointer = \"info/version\"\n"),
            options: Refusal.version + ["--format", "json", "--version-pointer", "info/version"],
            problem: "'info/version' is not a JSON Pointer: it must be empty or start with '/'"
        ),
        Refusal(
            testDescription: "a date-pointer with a bad escape", key: "date-pointer",
            app: Refusal.app("format = \"json\"\nversion-pointer = \"/v\"\ndate-pointer = \"/a~2\"\n"),
            options: Refusal.version + ["--format", "json", "--version-pointer", "/v", "--date-pointer", "/a~2"],
            problem: "'/a~2' is not a JSON Pointer: '~' must be followed by 0 or 1"
        ),
        Refusal(
            testDescription: "format turkcell with an empty app-id", key: "app-id",
            app: Refusal.app("format = \"turkcell\"\napp-id = \"\"\n"),
            options: Refusal.version + ["--format", "turkcell", "--app-id", ""],
            problem: "format turkcell needs one: the document's packageName must equal it"
        ),
        Refusal(
            testDescription: "a URL of another scheme", key: "url",
            app: "url = \"ftp://u:secret@h/c\"\nversion = \"1.0\"\n",
            options: Refusal.version + ["--url", "ftp://u:secret@h/c"],
            problem: "'ftp://***@h/c': not an https, http or file URL"
        ),
        Refusal(
            testDescription: "a URL with a port past 65535", key: "url",
            app: "url = \"https://h:99999/c\"\nversion = \"1.0\"\n",
            options: Refusal.version + ["--url", "https://h:99999/c"],
            problem: "'https://h:99999/c': port 99999 is not from 1 to 65535"
        ),
        Refusal(
            testDescription: "a version-package that is no Debian package name", key: "version-package",
            app: "url = \"https://o.example/v\"\nversion-package = \"Dpkg\"\n",
            options: ["--version-package", "Dpkg"],
            problem: "'Dpkg' is not a Debian package name (lower-case letters, digits, '+', '-', '.', and an optional ':architecture')"
        ),
    ]

    @Test("ssvcd --check-config and ssvcctl evaluate refuse the value in the same words", arguments: refusals)
    func sameWords(refusal: Refusal) async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        _ = try folder.file("apps.d/a.toml", refusal.app)
        let main = try folder.file(
            "ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"c.sock\"\napps-dir = \"apps.d\"\n" + refusal.daemon
        )
        let loaded = try await Executable.run("ssvcd", ["--config", main, "--check-config"])
        #expect(loaded.status == 78, "\(loaded.standardOutput)")
        let named = refusal.daemon.isEmpty ? "a.toml: \(refusal.key): " : "ssvcd.toml: daemon.\(refusal.key): "
        #expect(Self.words(after: named, in: loaded.standardError) == refusal.problem, "\(loaded.standardError)")

        let evaluated = try await Executable.run("ssvcctl", ["evaluate", "--response", "-"] + refusal.options, input: Data("{}".utf8))
        #expect(evaluated.status == 64, "\(evaluated.standardOutput)")
        #expect(Self.words(after: "--\(refusal.key): ", in: evaluated.standardError) == refusal.problem, "\(evaluated.standardError)")
    }

    /// The rest of the line that holds `name`, without the loader's
    /// ` (line N)`; nil when no line does.
    static func words(after name: String, in output: String) -> String? {
        for line in output.split(separator: "\n") {
            guard let found = line.range(of: name) else { continue }
            var words = line[found.upperBound...]
            if let place = words.range(of: " (line ", options: .backwards), words.hasSuffix(")") { words = words[..<place.lowerBound] }
            return String(words)
        }
        return nil
    }
}
