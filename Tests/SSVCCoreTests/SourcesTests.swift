import Foundation
@testable import SSVCCore
import Testing

/// The fixtures in `Tests/Fixtures/sources`, written after the services'
/// public API documentation.
enum SourceFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sources")

    static func bytes(_ name: String) -> [UInt8] {
        Array((try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data())
    }
}

private func context(_ running: String, scheme: VersionScheme = .dotted, settings: FormatSettings = FormatSettings()) -> EvaluationContext {
    EvaluationContext(
        running: RunningVersion(key: running, scheme: scheme), appID: "app", locale: LocaleSettings(language: "en", country: ""),
        now: Date(timeIntervalSince1970: 1_800_000_000), formatSettings: settings
    )
}

@Suite("JSON Pointer (RFC 6901)")
struct JSONPointerTests {
    /// RFC 6901, section 5.
    static var document: JSONValue { try! JSONParser.parse(Array(#"""
        {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
        """#.utf8)) }

    @Test("the RFC's examples resolve to the RFC's values", arguments: [
        ("/foo", #"["bar","baz"]"#), ("/foo/0", #""bar""#), ("/", "0"), ("/a~1b", "1"), ("/c%d", "2"), ("/e^f", "3"),
        ("/g|h", "4"), ("/i\\j", "5"), ("/k\"l", "6"), ("/ ", "7"), ("/m~0n", "8"),
    ])
    func rfcExamples(pointer: String, expected: String) throws {
        let value = try #require(try JSONPointer(parsing: pointer).resolve(Self.document))
        #expect(value == (try JSONParser.parse(Array(expected.utf8))))
    }

    @Test("the empty pointer is the whole document")
    func whole() throws {
        #expect(try JSONPointer(parsing: "").resolve(Self.document) == Self.document)
    }

    @Test("nothing there: absent members, indices past the end, leading zeros, '-', through a scalar, null", arguments: [
        "/nope", "/foo/2", "/foo/01", "/foo/-", "/foo/0/x", "/foo/+1", "/foo/99999999999999999999", "/ /x",
    ])
    func nothing(pointer: String) throws {
        #expect(try JSONPointer(parsing: pointer).resolve(Self.document) == nil)
        #expect(try JSONPointer(parsing: "/n").resolve(.object([("n", .null)])) == nil)
    }

    @Test("text that is not a pointer is refused", arguments: ["info/version", "/a~2b", "/a~", "~"])
    func syntax(text: String) {
        #expect(throws: JSONPointer.SyntaxError.self) { try JSONPointer(parsing: text) }
    }
}

@Suite("format json: any document read with pointers")
struct PointerDocumentTests {
    func settings(_ version: String, date: String? = nil, minimum: String? = nil, url: String? = nil) throws -> FormatSettings {
        let pointer = { (text: String?) throws in try text.map { try JSONPointer(parsing: $0) } }
        return FormatSettings(pointers: PointerDocument.Settings(
            version: try JSONPointer(parsing: version), date: try pointer(date), minimumVersion: try pointer(minimum), url: try pointer(url)
        ))
    }

    @Test("PyPI's project JSON: /info/version, its upload time and release page")
    func pypi() throws {
        let settings = try settings("/info/version", date: "/urls/1/upload_time_iso_8601", url: "/info/release_url")
        let decision = try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: context("24.8.0", settings: settings)).decision
        #expect(decision.status == .updateAvailable)
        #expect(decision.latestVersion == "24.10.0")
        #expect(decision.availableSince.map(RFC3339.format) == "2024-10-07T19:44:43Z")
        #expect(decision.description?.targetUrl == "https://pypi.org/project/black/24.10.0/")
        let same = try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: context("24.10.0", settings: settings))
        #expect(same.decision.status == .upToDate)
    }

    @Test("npm's latest document: /version; ahead when running newer")
    func npm() throws {
        let settings = try settings("/version")
        #expect(try ResponseFormat.json.evaluate(SourceFixture.bytes("npm-latest.json"), context: context("1.2.0", settings: settings)).decision.status == .updateAvailable)
        #expect(try ResponseFormat.json.evaluate(SourceFixture.bytes("npm-latest.json"), context: context("1.4", settings: settings)).decision.status == .ahead)
    }

    @Test("a tags list's /0/name, a minimum version, and Unix seconds for the date")
    func tagsAndMinimum() throws {
        let body = Array(#"[{"name":"2.1.0","minimum":"2.0","at":1800000000},{"name":"2.0.9"}]"#.utf8)
        let settings = try settings("/0/name", date: "/0/at", minimum: "/0/minimum")
        let required = try ResponseFormat.json.evaluate(body, context: context("1.9", settings: settings)).decision
        #expect(required.status == .updateRequired)
        #expect(required.availableSince == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(try ResponseFormat.json.evaluate(body, context: context("2.0.1", settings: settings)).decision.status == .updateAvailable)
    }

    @Test("a pointer to nothing or to the wrong type rejects the document, naming key and pointer", arguments: [
        ("/info/versions", nil, nil, "version-pointer '/info/versions': refers to nothing in the document"),
        ("/info/yanked", nil, nil, "version-pointer '/info/yanked': expected a string, found false"),
        ("/info", nil, nil, "version-pointer '/info': expected a string, found an object"),
        ("/info/version", "/info/name", nil, "date-pointer '/info/name': 'black' is not an RFC 3339 time"),
        ("/info/version", "/last_serial/x", nil, "date-pointer '/last_serial/x': refers to nothing in the document"),
        ("/info/version", "/info/classifiers", nil, "date-pointer '/info/classifiers': expected an RFC 3339 time or Unix seconds, found an array"),
        ("/info/version", nil, "/vulnerabilities", "url-pointer '/vulnerabilities': expected a string, found an array"),
    ] as [(String, String?, String?, String)])
    func pointerErrors(version: String, date: String?, url: String?, message: String) throws {
        let settings = try settings(version, date: date, url: url)
        #expect(throws: ResponseError.self) {
            try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: context("1.0", settings: settings))
        }
        do {
            _ = try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: context("1.0", settings: settings))
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a version its scheme cannot read is refused, naming the pointer")
    func schemeRefusal() throws {
        let body = Array(#"{"v":"not a version!"}"#.utf8)
        let settings = try settings("/v")
        do {
            _ = try ResponseFormat.json.evaluate(body, context: context("1.0", scheme: .semver, settings: settings))
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("version-pointer '/v': "), "\(error)")
        }
    }
}

@Suite("format github: a releases list")
struct GitHubReleasesTests {
    let body = SourceFixture.bytes("github-releases.json")

    func settings(prereleases: Bool = false, prefix: String = "v", pattern: String? = nil) -> FormatSettings {
        FormatSettings(github: GitHubReleases.Settings(includePrereleases: prereleases, tagPrefix: prefix, tagPattern: pattern))
    }

    @Test("a monorepo: tag-pattern keeps billing's tags; drafts and prereleases are skipped; the highest version wins over the latest published")
    func monorepo() throws {
        let decision = try ResponseFormat.github.evaluate(body, context: context("2.4.0", settings: settings(pattern: "^billing-v(.+)$"))).decision
        #expect(decision.latestVersion == "2.4.1", "not the draft 2.5.0, the prerelease 3.0.0-rc.1, nor the backport 2.3.9 published later")
        #expect(decision.status == .updateAvailable)
        #expect(decision.availableSince.map(RFC3339.format) == "2026-11-18T10:00:00Z")
        #expect(decision.description == UpdateDescription(
            message: "billing 2.4.1", whatIsNew: "Fixes the invoice rounding.", targetUrl: "https://github.com/acme/mono/releases/tag/billing-v2.4.1"
        ))
    }

    @Test("include-prereleases takes the release candidate, under semver")
    func prereleases() throws {
        let decision = try ResponseFormat.github.evaluate(
            body, context: context("2.4.1", scheme: .semver, settings: settings(prereleases: true, pattern: "^billing-v(.+)$"))
        ).decision
        #expect(decision.latestVersion == "3.0.0-rc.1")
        #expect(decision.status == .updateAvailable)
    }

    @Test("tag-prefix: a leading v by default; tags that are not versions are skipped and counted")
    func prefix() throws {
        let body = Array(#"[{"tag_name":"v1.2.3","draft":false,"prerelease":false},{"tag_name":"nightly","draft":false,"prerelease":false},{"tag_name":"v1.10.0","draft":false,"prerelease":false}]"#.utf8)
        let decision = try ResponseFormat.github.evaluate(body, context: context("1.2.3", scheme: .semver)).decision
        #expect(decision.latestVersion == "1.10.0")
        #expect(decision.note == "1 releases skipped: their tags are not semver versions")
        let release = Array(#"{"tag_name":"release-4.0","draft":false,"prerelease":false,"published_at":"2026-01-02T03:04:05Z"}"#.utf8)
        let latest = try ResponseFormat.github.evaluate(release, context: context("3.9", settings: settings(prefix: "release-"))).decision
        #expect(latest.latestVersion == "4.0", "/releases/latest answers one object")
    }

    @Test("under dotted, tags that are not versions never win: stable, release-candidate, x, a bare v and an empty capture are skipped and counted")
    func wordsAreNotVersions() throws {
        let tags = ["stable", "release-candidate", "v2.4.1", "x", "v", "v1.9"]
        let body = Array(("[" + tags.map { #"{"tag_name":"\#($0)","draft":false,"prerelease":false}"# }.joined(separator: ",") + "]").utf8)
        let decision = try ResponseFormat.github.evaluate(body, context: context("2.0")).decision
        #expect(decision.latestVersion == "2.4.1")
        #expect(decision.status == .updateAvailable)
        #expect(decision.note == "4 releases skipped: their tags are not dotted versions")
        let captured = Array(#"[{"tag_name":"billing-v","draft":false,"prerelease":false},{"tag_name":"billing-v1.0","draft":false,"prerelease":false}]"#.utf8)
        let empty = try ResponseFormat.github.evaluate(captured, context: context("2.0", settings: settings(pattern: "^billing-v(.*)$"))).decision
        #expect(empty.latestVersion == "1.0")
        #expect(empty.status == .ahead)
    }

    @Test("no usable release, a wrong type, or a pattern without a group is a clear error", arguments: [
        (#"[{"tag_name":"v1.0","draft":true}]"#, nil, "no release that is neither a draft nor a prerelease among 1, with a version under the dotted scheme"),
        (#"[{"tag_name":"v1.0","draft":"no"}]"#, nil, #"[0].draft: expected true, false, 0 or 1, found the string "no""#),
        (#"[{"name":"x"}]"#, nil, "[0]: has no tag_name"),
        (#"[{"tag_name":"v1.0","published_at":"yesterday"}]"#, nil, "[0].published_at: not an RFC 3339 time"),
        (#"{"message":"Not Found"}"#, nil, "document: has no tag_name"),
        (#"[{"tag_name":"v1.0"}]"#, "^v.+$", "tag-pattern '^v.+$' has no capture group for the version"),
    ] as [(String, String?, String)])
    func errors(document: String, pattern: String?, message: String) {
        do {
            _ = try ResponseFormat.github.evaluate(Array(document.utf8), context: context("1.0", settings: settings(pattern: pattern)))
            Issue.record("accepted \(document)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("requests ask for 100 releases a page and GitHub's media type and API version")
    func request() {
        let base = "https://api.github.com/repos/acme/mono/releases"
        #expect(ResponseFormat.github.requestURL(base: base, context: context("1.0")) == base + "?per_page=100")
        #expect(ResponseFormat.github.requestURL(base: base + "?per_page=20", context: context("1.0")) == base + "?per_page=20")
        #expect(ResponseFormat.github.requestHeaders.map(\.name) == ["Accept", "X-GitHub-Api-Version"])
        #expect(ResponseFormat.github.requestHeaders.first?.value == "application/vnd.github+json")
    }
}

@Suite("dpkg's database")
struct DpkgStatusTests {
    let status = DpkgStatus(parsing: SourceFixture.bytes("dpkg-status"))

    @Test("an installed package's version, as dpkg-query shows it", arguments: [
        ("billing-agent", "1:2.4.0-1"), ("waiting-trigger", "5.1-3"), ("libmulti", "2.0-1"), ("libmulti:i386", "2.0-1"),
        ("libskew:i386", "1.9-1"), ("libskew:amd64", "2.0-1"),
    ])
    func installed(name: String, version: String) throws {
        #expect(try status.installedVersion(of: name) == version)
    }

    @Test("a package that is not installed names its dpkg state", arguments: [
        ("half-done", "package half-done is not installed (dpkg state: half-installed)"),
        ("removed-tool", "package removed-tool is not installed (dpkg state: config-files)"),
        ("unpacked-only", "package unpacked-only is not installed (dpkg state: unpacked)"),
        ("nosuch", "package nosuch is not installed (dpkg knows nothing of it)"),
        ("libmulti:arm64", "package libmulti:arm64 is not installed (dpkg knows nothing of it)"),
        ("libskew", "package libskew is installed for several architectures with different versions (amd64 2.0-1, i386 1.9-1): name one, as libskew:amd64"),
    ])
    func notInstalled(name: String, message: String) {
        #expect(throws: DpkgStatus.Problem(description: message)) { try status.installedVersion(of: name) }
    }

    @Test("a continuation line is not a field, and garbage is skipped without a crash")
    func robustness() throws {
        #expect(try status.installedVersion(of: "billing-agent") == "1:2.4.0-1")
        let garbage = DpkgStatus(parsing: Array("\u{0}\u{ff}Package\n: x\n\n\n:::\nStatus: a b c\n".utf8))
        #expect(garbage.entries.isEmpty)
        let crlf = DpkgStatus(parsing: Array("Package: x\r\nStatus: install ok installed\r\nVersion: 1.0\r\n\r\n".utf8))
        #expect(try crlf.installedVersion(of: "x") == "1.0")
    }
}

@Suite("GitHub's rate-limit reset")
struct RateLimitResetTests {
    @Test("X-RateLimit-Reset is a Unix second, bounded like Retry-After")
    func reset() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.rateLimitReset("1800000600", now: now) == Date(timeIntervalSince1970: 1_800_000_600))
        #expect(RetryAfter.rateLimitReset("1700000000", now: now) == now)
        #expect(RetryAfter.rateLimitReset("99999999999", now: now) == now.addingTimeInterval(86_400))
        #expect(RetryAfter.rateLimitReset("soon", now: now) == nil)
        #expect(RetryAfter.rateLimitReset("", now: now) == nil)
    }
}
