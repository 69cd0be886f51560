import Foundation
@testable import SSVCCore
import Testing

@Suite("format github: a releases list")
struct GitHubReleasesTests {
    let body = SourceFixture.bytes("github-releases.json")

    func settings(prereleases: Bool = false, prefix: String = "v", pattern: String? = nil) -> FormatSettings {
        FormatSettings(github: GitHubReleases.Settings(includePrereleases: prereleases, tagPrefix: prefix, tagPattern: pattern))
    }

    @Test("a monorepo: tag-pattern keeps billing's tags; drafts and prereleases are skipped; the highest version wins over the latest published")
    func monorepo() throws {
        let decision = try ResponseFormat.github.evaluate(body, context: sourceContext("2.4.0", settings: settings(pattern: "^billing-v(.+)$"))).decision
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
            body, context: sourceContext("2.4.1", scheme: .semver, settings: settings(prereleases: true, pattern: "^billing-v(.+)$"))
        ).decision
        #expect(decision.latestVersion == "3.0.0-rc.1")
        #expect(decision.status == .updateAvailable)
    }

    @Test("tag-prefix: a leading v by default; tags that are not versions are skipped and counted")
    func prefix() throws {
        let body = Array(#"[{"tag_name":"v1.2.3","draft":false,"prerelease":false},{"tag_name":"nightly","draft":false,"prerelease":false},{"tag_name":"v1.10.0","draft":false,"prerelease":false}]"#.utf8)
        let decision = try ResponseFormat.github.evaluate(body, context: sourceContext("1.2.3", scheme: .semver)).decision
        #expect(decision.latestVersion == "1.10.0")
        #expect(decision.note == "1 releases skipped: their tags are not semver versions")
        let release = Array(#"{"tag_name":"release-4.0","draft":false,"prerelease":false,"published_at":"2026-01-02T03:04:05Z"}"#.utf8)
        let latest = try ResponseFormat.github.evaluate(release, context: sourceContext("3.9", settings: settings(prefix: "release-"))).decision
        #expect(latest.latestVersion == "4.0", "/releases/latest answers one object")
    }

    @Test("under dotted, tags that are not versions never win: stable, release-candidate, x, a bare v and an empty capture are skipped and counted")
    func wordsAreNotVersions() throws {
        let tags = ["stable", "release-candidate", "v2.4.1", "x", "v", "v1.9"]
        let body = Array(("[" + tags.map { #"{"tag_name":"\#($0)","draft":false,"prerelease":false}"# }.joined(separator: ",") + "]").utf8)
        let decision = try ResponseFormat.github.evaluate(body, context: sourceContext("2.0")).decision
        #expect(decision.latestVersion == "2.4.1")
        #expect(decision.status == .updateAvailable)
        #expect(decision.note == "4 releases skipped: their tags are not dotted versions")
        let captured = Array(#"[{"tag_name":"billing-v","draft":false,"prerelease":false},{"tag_name":"billing-v1.0","draft":false,"prerelease":false}]"#.utf8)
        let empty = try ResponseFormat.github.evaluate(captured, context: sourceContext("2.0", settings: settings(pattern: "^billing-v(.*)$"))).decision
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
            _ = try ResponseFormat.github.evaluate(Array(document.utf8), context: sourceContext("1.0", settings: settings(pattern: pattern)))
            Issue.record("accepted \(document)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("requests ask for 100 releases a page and GitHub's media type and API version")
    func request() {
        let base = "https://api.github.com/repos/acme/mono/releases"
        #expect(ResponseFormat.github.requestURL(base: base, context: sourceContext("1.0")) == base + "?per_page=100")
        #expect(ResponseFormat.github.requestURL(base: base + "?per_page=20", context: sourceContext("1.0")) == base + "?per_page=20")
        #expect(ResponseFormat.github.requestHeaders.map(\.name) == ["Accept", "X-GitHub-Api-Version"])
        #expect(ResponseFormat.github.requestHeaders.first?.value == "application/vnd.github+json")
    }
}
