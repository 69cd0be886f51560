import FoundationEssentials
import Testing
@testable import SSVCCore

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
