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

@Suite("SSVC format: rejected responses")
struct SSVCRejectionTests {
    func rejection(_ json: String) -> String? {
        do {
            _ = try SSVCResponse(parsing: Array(json.utf8))
            return nil
        } catch {
            return error.description
        }
    }

    @Test("wrong types, negative, fractional and oversized numbers name the key", arguments: [
        (#"{"SSVCLatestVersionNumber":"16809984"}"#, #"SSVCLatestVersionNumber: expected an unsigned integer, found the string "16809984""#),
        (#"{"SSVCLatestVersionNumber":-5}"#, "SSVCLatestVersionNumber: expected an unsigned integer, found -5"),
        (#"{"SSVCMinimumSupportedVersionNumber":1.5}"#, "SSVCMinimumSupportedVersionNumber: expected an unsigned integer, found 1.5"),
        (#"{"SSVCLatestVersionNumber":18446744073709551616}"#, "SSVCLatestVersionNumber: 18446744073709551616 is larger than 18446744073709551615"),
        (#"{"SSVCLatestVersionKey":1.0}"#, "SSVCLatestVersionKey: expected a string, found 1.0"),
        (#"{"SSVCLatestVersionAvailableSince":true}"#, "SSVCLatestVersionAvailableSince: expected an unsigned integer, found true"),
        (#"{"SSVCLatestVersionAvailableSince":99999999999999}"#, "SSVCLatestVersionAvailableSince: 99999999999999 is after the year 9999"),
        (#"{"SSVCUpdateAvailable":2}"#, "SSVCUpdateAvailable: expected true, false, 0 or 1, found 2"),
        (#"{"SSVCPhasedRolloutInterval":"604800"}"#, #"SSVCPhasedRolloutInterval: expected an unsigned integer, found the string "604800""#),
        (#"{"SSVCPhasedRolloutInterval":-1}"#, "SSVCPhasedRolloutInterval: expected an unsigned integer, found -1"),
        (#"{"SSVCPhasedRolloutInterval":0.5}"#, "SSVCPhasedRolloutInterval: expected an unsigned integer, found 0.5"),
        (#"{"SSVCPhasedRolloutInterval":31622401}"#, "SSVCPhasedRolloutInterval: 31622401 s is longer than the longest rollout window, 366 days (31622400 s)"),
        (#"{"SSVCPhasedRolloutInterval":18446744073709551615}"#, "SSVCPhasedRolloutInterval: 18446744073709551615 s is longer than the longest rollout window, 366 days (31622400 s)"),
        (#"{"SSVCPhasedRolloutPercentage":-1}"#, "SSVCPhasedRolloutPercentage: -1 is not a percentage from 0 to 100"),
        (#"{"SSVCPhasedRolloutPercentage":100.5}"#, "SSVCPhasedRolloutPercentage: 100.5 is not a percentage from 0 to 100"),
        (#"{"SSVCPhasedRolloutPercentage":1e400}"#, "SSVCPhasedRolloutPercentage: 1e400 is not a percentage from 0 to 100"),
        (#"{"SSVCPhasedRolloutPercentage":"30"}"#, #"SSVCPhasedRolloutPercentage: expected a number from 0 to 100, found the string "30""#),
        (#"{"SSVCPhasedRolloutPercentage":true}"#, "SSVCPhasedRolloutPercentage: expected a number from 0 to 100, found true"),
        (#"{"SSVCUpdateRequired":"yes"}"#, #"SSVCUpdateRequired: expected true, false, 0 or 1, found the string "yes""#),
        ("[1,2]", "document: expected an object, found an array"),
        (#""1.0""#, #"document: expected an object, found the string "1.0""#),
        ("null", "document: expected an object, found null"),
        ("", "not valid JSON: the document is empty at line 1, column 1"),
        ("<html>", "not valid JSON: unexpected '<', expected a value at line 1, column 1"),
    ])
    func rejected(json: String, message: String) {
        #expect(rejection(json) == message)
    }

    @Test("a rollout cap from 0 to 100, fractions and exponents allowed, null absent")
    func rolloutCap() throws {
        for (text, cap) in [("0", 0.0), ("100", 100), ("37.5", 37.5), ("2.5e1", 25), ("-0", 0)] {
            let response = try SSVCResponse(parsing: Array(#"{"SSVCPhasedRolloutPercentage":\#(text)}"#.utf8))
            #expect(response.phasedRolloutPercentage == cap, "\(text)")
            #expect(try response.decide(for: RunningVersion(key: "1.0")).rolloutPercentage == cap)
        }
        #expect(try SSVCResponse(parsing: Array(#"{"SSVCPhasedRolloutPercentage":null}"#.utf8)).phasedRolloutPercentage == nil)
    }

    @Test("a rollout window of exactly 366 days is accepted")
    func longestWindow() throws {
        let response = try SSVCResponse(parsing: Array(#"{"SSVCPhasedRolloutInterval":31622400}"#.utf8))
        #expect(response.phasedRolloutInterval == 31_622_400)
    }

    @Test("numbers at the edge of 64 bits are accepted")
    func largestNumber() throws {
        let response = try SSVCResponse(parsing: Array(#"{"SSVCLatestVersionNumber":18446744073709551615}"#.utf8))
        #expect(response.latestVersionNumber == .max)
    }
}
