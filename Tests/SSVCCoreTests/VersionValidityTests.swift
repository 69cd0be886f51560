import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("what is a version at all")
struct VersionValidityTests {
    @Test("under dotted and nsnumeric, text that does not begin with a digit (after an optional v) is no version", arguments: [
        "", "stable", "release-candidate", "x", "v", "vv1", "myagent 1.0", "banana", " 1.0", "-1", "V1.0",
    ])
    func notVersions(text: String) {
        for scheme in [VersionScheme.dotted, .nsnumeric] {
            #expect(throws: VersionError.self, "\(scheme) \(text)") { try scheme.validate(text) }
        }
    }

    @Test("a leading v is dropped where the scheme allows it, and kept by debian", arguments: [
        (VersionScheme.dotted, "v1.0", "1.0"), (.dotted, "2.4.1", "2.4.1"), (.dotted, "1.0 beta", "1.0 beta"), (.nsnumeric, "v10.3", "10.3"),
        (.semver, "v1.2.3", "1.2.3"), (.semver, "1.2.3-rc.1", "1.2.3-rc.1"), (.debian, "1:2.0-1", "1:2.0-1"),
    ])
    func normalized(scheme: VersionScheme, text: String, expected: String) throws {
        #expect(try scheme.normalized(text) == expected)
    }

    @Test("an empty text is no version in any scheme, dpkg's 'no version' included")
    func empty() {
        for scheme in VersionScheme.allCases {
            #expect(throws: VersionError.self, "\(scheme)") { try scheme.validate("") }
        }
    }

    @Test("v1.10 and 1.9 compare as 1.10 and 1.9 under dotted: the v is not text that sorts")
    func vCompares() throws {
        #expect(try VersionScheme.dotted.compare("v1.10", "1.9") == .newer)
        #expect(try VersionScheme.nsnumeric.compare("v2", "10") == .older)
    }
}
