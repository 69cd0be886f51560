import FoundationEssentials
import Testing
@testable import SSVCCore

@Suite("SSVC format: decisions")
struct SSVCDecisionTests {
    func decide(_ json: String, key: String, number: UInt64? = nil, scheme: VersionScheme = .dotted) throws -> Decision {
        try SSVCResponse(parsing: Array(json.utf8))
            .decide(for: RunningVersion(key: key, configuredNumber: number, scheme: scheme))
    }

    @Test("the same version is up to date")
    func upToDate() throws {
        #expect(try decide(#"{"SSVCLatestVersionKey":"1.2","SSVCLatestVersionNumber":18907136}"#, key: "1.2").status == .upToDate)
    }

    @Test("a running version newer than the latest is ahead")
    func ahead() throws {
        #expect(try decide(#"{"SSVCLatestVersionKey":"1.2"}"#, key: "1.10").status == .ahead)
        #expect(try decide(#"{"SSVCLatestVersionNumber":5}"#, key: "x", number: 9).status == .ahead)
    }

    @Test("the number takes precedence over the key")
    func numberWins() throws {
        let decision = try decide(#"{"SSVCLatestVersionKey":"9.0","SSVCLatestVersionNumber":100}"#, key: "1.0", number: 100)
        #expect(decision.status == .upToDate)
    }

    @Test("the key decides under the app's scheme")
    func schemeDecides() throws {
        #expect(try decide(#"{"SSVCLatestVersionKey":"2.31"}"#, key: "2.4").status == .updateAvailable)
        #expect(try decide(#"{"SSVCLatestVersionKey":"1.0.0"}"#, key: "1.0.0-rc.1", scheme: .semver).status == .updateAvailable)
        #expect(try decide(#"{"SSVCLatestVersionKey":"1.0~rc1"}"#, key: "1.0", scheme: .debian).status == .ahead)
    }

    @Test("with an unknown running number the key decides, and the note says so")
    func unknownNumberUsesKey() throws {
        let decision = try decide(#"{"SSVCLatestVersionKey":"2.0.0","SSVCLatestVersionNumber":7}"#, key: "1.0.0-beta", scheme: .semver)
        #expect(decision.status == .updateAvailable)
        #expect(decision.note == "decided by version key: the running version number is unknown")
    }

    @Test("a minimum with an unknown running number cannot require, and the note says so")
    func minimumWithoutNumber() throws {
        let decision = try decide(#"{"SSVCMinimumSupportedVersionNumber":99,"SSVCLatestVersionKey":"2.0.0"}"#, key: "1.0.0-rc.1", scheme: .semver)
        #expect(!decision.updateRequired)
        #expect(decision.status == .updateAvailable)
        #expect(decision.note?.contains("minimum supported version number but the running version number is unknown") == true)
    }

    @Test("the key 0.0.0 means no version")
    func placeholderKey() throws {
        #expect(try decide(#"{"SSVCLatestVersionKey":"0.0.0"}"#, key: "1.0").status == .unknown)
    }

    @Test("draft flags decide when nothing else does", arguments: [
        (#"{"SSVCUpdateAvailable":1,"SSVCUpdateRequired":0}"#, UpdateStatus.updateAvailable),
        (#"{"SSVCUpdateAvailable":true,"SSVCUpdateRequired":true}"#, .updateRequired),
        (#"{"SSVCUpdateAvailable":0}"#, .upToDate),
        (#"{"SSVCUpdateAvailable":false,"SSVCUpdateRequired":false}"#, .upToDate),
        (#"{"SSVCUpdateRequired":1}"#, .updateRequired),
    ])
    func draftFlags(json: String, status: UpdateStatus) throws {
        #expect(try decide(json, key: "abcdefg").status == status)
    }

    @Test("the draft available-since is an alias, the 0.0.1 key wins")
    func draftSince() throws {
        #expect(try decide(#"{"SSVCUpdateAvailableSince":10}"#, key: "1").availableSince == Date(timeIntervalSince1970: 10))
        #expect(try decide(#"{"SSVCPhasedRolloutInterval":604800,"SSVCPhasedRolloutInterval2":"x"}"#, key: "1").rolloutWindow == 604_800)
        #expect(try decide(#"{"SSVCPhasedRolloutInterval":null}"#, key: "1").rolloutWindow == nil)
        #expect(try decide(#"{"SSVCUpdateAvailableSince":10,"SSVCLatestVersionAvailableSince":20}"#, key: "1").availableSince == Date(timeIntervalSince1970: 20))
    }

    @Test("null is absent and unknown keys are ignored")
    func nullAndUnknown() throws {
        let decision = try decide(#"{"SSVCLatestVersionKey":null,"SSVCLatestVersionNumber":null,"Other":[1,{"x":2}]}"#, key: "1.0")
        #expect(decision.status == .unknown)
    }

    @Test("a latest key the scheme cannot read rejects the response, naming the key")
    func badLatestKey() {
        let error = #expect(throws: ResponseError.self) {
            try decide(#"{"SSVCLatestVersionKey":"1.x"}"#, key: "1.0.0", scheme: .semver)
        }
        #expect(error?.description == "SSVCLatestVersionKey: '1.x' is not a valid semver version: expected MAJOR.MINOR.PATCH")
    }
}
