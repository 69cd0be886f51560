import FoundationEssentials
import Testing
@testable import SSVCCore

/// SSVC's own test suite, carried over: the running app is version 0 with
/// an empty key, and `version-number = 0` is configured.
@Suite("SSVC format: SSVC's own cases")
struct SSVCOwnCasesTests {
    let running = RunningVersion(key: "", configuredNumber: 0)

    func decide(_ json: String) throws -> Decision {
        try SSVCResponse(parsing: Array(json.utf8)).decide(for: running)
    }

    @Test("a full response: available and required")
    func fullResponse() throws {
        let decision = try decide(#"{"SSVCMinimumSupportedVersionNumber":16809984,"SSVCLatestVersionAvailableSince":1388750400,"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#)
        #expect(decision.updateAvailable)
        #expect(decision.updateRequired)
        #expect(decision.status == .updateRequired)
        #expect(decision.latestVersion == "1.0")
        #expect(decision.latestVersionNumber == 16_809_984)
        #expect(decision.minimumSupportedVersionNumber == 16_809_984)
        #expect(decision.availableSince == Date(timeIntervalSince1970: 1_388_750_400))
    }

    @Test("minimum 0: available, not required")
    func minimumZero() throws {
        let decision = try decide(#"{"SSVCMinimumSupportedVersionNumber":0,"SSVCLatestVersionAvailableSince":1388750400,"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#)
        #expect(decision.updateAvailable)
        #expect(!decision.updateRequired)
        #expect(decision.status == .updateAvailable)
        #expect(decision.minimumSupportedVersionNumber == nil)
    }

    @Test("no minimum: available, not required")
    func noMinimum() throws {
        let decision = try decide(#"{"SSVCLatestVersionAvailableSince":1388750400,"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#)
        #expect(decision.updateAvailable)
        #expect(!decision.updateRequired)
    }

    @Test("no available-since: still available, no date")
    func noAvailableSince() throws {
        let decision = try decide(#"{"SSVCMinimumSupportedVersionNumber":0,"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#)
        #expect(decision.updateAvailable)
        #expect(decision.availableSince == nil)
    }

    @Test("no key: the number decides")
    func noKey() throws {
        let decision = try decide(#"{"SSVCLatestVersionAvailableSince":1388750400,"SSVCLatestVersionNumber":16809984}"#)
        #expect(decision.updateAvailable)
        #expect(decision.latestVersion == nil)
    }

    @Test("no number: the key decides")
    func noNumber() throws {
        let decision = try decide(#"{"SSVCLatestVersionAvailableSince":1388750400,"SSVCLatestVersionKey":"1.0"}"#)
        #expect(decision.updateAvailable)
        #expect(decision.latestVersionNumber == nil)
    }

    @Test("an empty object decides nothing")
    func emptyObject() throws {
        let decision = try decide("{}")
        #expect(!decision.updateAvailable)
        #expect(!decision.updateRequired)
        #expect(decision.status == .unknown)
        #expect(decision.note == "the response names no version")
    }
}
