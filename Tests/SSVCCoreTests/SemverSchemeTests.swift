import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("semver scheme")
struct SemverSchemeTests {
    /// semver.org's own precedence example, in increasing order.
    static let ladder = [
        "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
        "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0", "2.1.0", "2.1.1",
        "18446744073709551616.0.0",
    ]

    @Test("follows semver.org's precedence, every pair")
    func ladderOrder() throws {
        for (i, a) in Self.ladder.enumerated() {
            for (j, b) in Self.ladder.enumerated() {
                let expected: VersionComparison = i < j ? .older : i == j ? .same : .newer
                #expect(try VersionScheme.semver.compare(a, b) == expected, "\(a) vs \(b)")
            }
        }
    }

    @Test("ignores build metadata and accepts a leading v")
    func buildMetadata() throws {
        #expect(try VersionScheme.semver.compare("1.0.0+20130313144700", "1.0.0+exp.sha.5114f85") == .same)
        #expect(try VersionScheme.semver.compare("v1.2.3", "1.2.3") == .same)
        #expect(try VersionScheme.semver.compare("1.0.0-99999999999999999999", "1.0.0-100000000000000000000") == .older)
    }

    @Test("rejects what is not a semantic version", arguments: [
        "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-", "1.2.3-01", "1.2.3-a..b", "1.2.3+", "1.2.3+a_b", "", "1.2.x", "1.2.3-ä",
    ])
    func rejects(version: String) {
        #expect(throws: VersionError.self) { try VersionScheme.semver.validate(version) }
    }
}
