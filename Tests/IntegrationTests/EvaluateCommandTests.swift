import Foundation
import SSVCTestSupport
import Testing

/// `ssvcctl evaluate` as an operator runs it on a document before publishing.
@Suite("ssvcctl evaluate", .processSlot)
struct EvaluateCommandTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    func evaluate(_ document: String, _ extra: [String] = [], version: String = "1.0") async throws -> CommandResult {
        let response = try folder.file("response.json", document)
        return try await Executable.run("ssvcctl", ["evaluate", "--format", "ssvc", "--response", response, "--version", version] + extra)
    }

    func json(_ result: CommandResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        return try #require(object as? [String: Any])
    }

    @Test("SSVC's own cases decide and exit as the spec says", arguments: [
        (#"{"SSVCMinimumSupportedVersionNumber":16809984,"SSVCLatestVersionAvailableSince":1388750400,"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#, Int32(11), "update-required"),
        (#"{"SSVCMinimumSupportedVersionNumber":0,"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#, 10, "update-available"),
        (#"{"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#, 10, "update-available"),
        (#"{"SSVCLatestVersionKey":"1.0"}"#, 10, "update-available"),
        ("{}", 0, "unknown"),
    ])
    func ownCases(document: String, status: Int32, statusName: String) async throws {
        let result = try await evaluate(document, ["--version-number", "0", "--json"], version: "")
        #expect(result.status == status, "\(result.standardError)")
        #expect(try json(result)["status"] as? String == statusName)
    }

    @Test("a running version that is no version is a usage error naming it; an empty one means none known")
    func runningVersionThatIsNoVersion() async throws {
        let refused = try await evaluate(#"{"SSVCLatestVersionKey":"2.0"}"#, version: "myagent 1.0")
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("--version: 'myagent 1.0' is not a valid dotted version: does not begin with a digit"), "\(refused.standardError)")
        #expect(try await evaluate(#"{"SSVCLatestVersionKey":"2.0"}"#, version: "").status == 10)
        #expect(try await evaluate(#"{"SSVCLatestVersionKey":"2.0"}"#, version: "v1.0").status == 10)
    }

    @Test("--rollout-position with --now: pending before this machine's turn (exit 0), offered from it (exit 10); required is never phased")
    func phased() async throws {
        let document = #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":1800000000,"SSVCPhasedRolloutInterval":604800}"#
        let early = try await evaluate(document, ["--rollout-position", "0.5", "--now", "2027-01-16T08:00:00Z", "--json"])
        #expect(early.status == 0, "\(early.standardOutput)\(early.standardError)")
        let pending = try json(early)
        #expect(pending["status"] as? String == "up-to-date")
        #expect(pending["pendingVersion"] as? String == "2.0")
        #expect(pending["offerAt"] as? String == "2027-01-18T20:00:00Z")
        let rollout = try #require(pending["rollout"] as? [String: Any])
        #expect(rollout["windowSeconds"] as? Int == 604_800)
        #expect(rollout["start"] as? String == "2027-01-15T08:00:00Z" && rollout["end"] as? String == "2027-01-22T08:00:00Z")
        #expect((rollout["offeredFraction"] as? Double).map { abs($0 - 1.0 / 7) < 1e-9 } == true, "\(rollout)")

        let text = try await evaluate(document, ["--rollout-position", "0.5", "--now", "2027-01-16T08:00:00Z"])
        #expect(text.standardOutput.contains("phased             2.0 offered here at 2027-01-18T20:00:00Z"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("14% of machines offered now"))
        // Past the window with a cap of 30: what time offers, and what the cap leaves (issue 51).
        let capped = try await evaluate(
            #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":1800000000,"SSVCPhasedRolloutInterval":604800,"SSVCPhasedRolloutPercentage":30}"#,
            ["--rollout-position", "0.62", "--now", "2027-02-16T08:00:00Z"]
        )
        #expect(capped.standardOutput.contains("100% of machines by time; the rollout cap leaves 30 % of machines offered now"), "\(capped.standardOutput)")

        let due = try await evaluate(document, ["--rollout-position", "0.5", "--now", "2027-01-18T20:00:00Z", "--json"])
        #expect(due.status == 10)
        #expect(try json(due)["pendingVersion"] is NSNull)
        // The app key's window over the document's: a day, so half a day in.
        let short = try await evaluate(document, ["--rollout-position", "0.5", "--phased-rollout-seconds", "86400", "--now", "2027-01-15T20:00:00Z"])
        #expect(short.status == 10, "\(short.standardOutput)")
        let required = try await evaluate(
            #"{"SSVCLatestVersionKey":"2.0","SSVCMinimumSupportedVersionNumber":33554432,"SSVCPhasedRolloutInterval":604800}"#,
            ["--rollout-position", "0.9", "--now", "2027-01-15T08:00:00Z"]
        )
        #expect(required.status == 11)
        let bad = try await evaluate(document, ["--rollout-position", "1.5"])
        #expect(bad.status == 64 && bad.standardError.contains("--rollout-position: must be from 0 to 1, found 1.5"), "\(bad.standardError)")
        // `-0` is the first machines' position, not an option (issue 52).
        let zero = try await evaluate(document, ["--rollout-position", "-0", "--now", "2027-01-15T08:00:01Z"])
        #expect(zero.status == 10, "\(zero.standardOutput)\(zero.standardError)")
    }

    @Test("up to date and ahead exit 0, available 10, required 11", arguments: [
        (#"{"SSVCLatestVersionKey":"1.0"}"#, Int32(0), "up-to-date"),
        (#"{"SSVCLatestVersionKey":"0.9"}"#, 0, "ahead"),
        (#"{"SSVCLatestVersionKey":"1.0.1"}"#, 10, "update-available"),
        (#"{"SSVCLatestVersionKey":"1.1","SSVCMinimumSupportedVersionNumber":17000000}"#, 11, "update-required"),
    ])
    func exitCodes(document: String, status: Int32, statusName: String) async throws {
        let result = try await evaluate(document)
        #expect(result.status == status)
        #expect(result.standardOutput.hasPrefix("status             \(statusName)\n"))
        #expect(result.standardError.isEmpty)
    }

    @Test("--json carries every decision field, null when absent")
    func jsonFields() async throws {
        let result = try await evaluate(#"{"SSVCLatestVersionKey":"1.1","SSVCLatestVersionNumber":17858560,"SSVCLatestVersionAvailableSince":1388750400}"#, ["--json"])
        let object = try json(result)
        #expect(object["status"] as? String == "update-available")
        #expect(object["updateAvailable"] as? Bool == true)
        #expect(object["updateRequired"] as? Bool == false)
        #expect(object["latestVersion"] as? String == "1.1")
        #expect((object["latestVersionNumber"] as? NSNumber)?.uint64Value == 17_858_560)
        #expect(object["minimumSupportedVersionNumber"] is NSNull)
        #expect(object["availableSince"] as? String == "2014-01-03T12:00:00Z")
        #expect(object["note"] is NSNull)
        #expect((object["currentVersionNumber"] as? NSNumber)?.uint64Value == 16_809_984)
        #expect(object["request"] == nil)
    }

    @Test("--url shows the request, with the locale from the environment or the flags")
    func requestURL() async throws {
        let response = try folder.file("r.json", "{}")
        let base = ["evaluate", "--response", response, "--version", "2.0 beta", "--url", "https://h.example/c?app=x", "--json"]
        let fromEnvironment = try await Executable.run("ssvcctl", base, environment: ["LANG": "de_AT.UTF-8"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(fromEnvironment.standardOutput.utf8)) as? [String: Any])
        #expect(object["request"] as? String == "https://h.example/c?app=x&SSVCLatestVersionKey=2.0%20beta&SSVCLatestVersionNumber=0&SSVCLanguage=de&SSVCCountry=AT&SSVCClientProtocolVersion=1")

        let fromFlags = try await Executable.run("ssvcctl", base.dropLast() + ["--language", "tr", "--country", "TR"], environment: ["LANG": "de_AT.UTF-8"])
        #expect(fromFlags.standardOutput.contains("SSVCLanguage=tr&SSVCCountry=TR&"))
    }

    @Test("reads the document from standard input with -")
    func standardInput() async throws {
        let result = try await Executable.run(
            "ssvcctl", ["evaluate", "--response", "-", "--version", "1.0"],
            input: Data(#"{"SSVCLatestVersionKey":"2.0"}"#.utf8)
        )
        #expect(result.status == 10)
    }

    @Test("the version scheme decides key comparisons")
    func schemes() async throws {
        await #expect(try evaluate(#"{"SSVCLatestVersionKey":"1.0.0"}"#, ["--version-scheme", "semver"], version: "1.0.0-rc.1").status == 10)
        await #expect(try evaluate(#"{"SSVCLatestVersionKey":"1.0~rc1"}"#, ["--version-scheme", "debian"], version: "1.0").status == 0)
        await #expect(try evaluate(#"{"SSVCLatestVersionKey":"1.10"}"#, ["--version-scheme", "nsnumeric"], version: "1.9").status == 10)
        await #expect(try evaluate(#"{"SSVCLatestVersionKey":"1.0rc1"}"#, ["--version-scheme", "pep440"], version: "1.0.dev1").status == 10)
        await #expect(try evaluate(#"{"SSVCLatestVersionKey":"1.0-RC-1"}"#, ["--version-scheme", "pep440"], version: "v1.0rc1").status == 0)
    }

    @Test("a bad response exits 1 with one line naming the problem", arguments: [
        ("not json", "not valid JSON: unexpected 'n', expected a value at line 1, column 1"),
        ("", "not valid JSON: the document is empty"),
        ("[]", "document: expected an object, found an array"),
        (#"{"SSVCLatestVersionNumber":"5"}"#, #"SSVCLatestVersionNumber: expected an unsigned integer, found the string "5""#),
        (#"{"SSVCLatestVersionNumber":-5}"#, "SSVCLatestVersionNumber: expected an unsigned integer, found -5"),
        (#"{"SSVCMinimumSupportedVersionNumber":2.5}"#, "SSVCMinimumSupportedVersionNumber: expected an unsigned integer, found 2.5"),
        (#"{"SSVCLatestVersionNumber":99999999999999999999}"#, "SSVCLatestVersionNumber: 99999999999999999999 is larger than 18446744073709551615"),
        (String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000), "nesting deeper than"),
        (#"{"a":1,"a":2}"#, #"duplicate key "a""#),
    ])
    func badResponse(document: String, problem: String) async throws {
        let result = try await evaluate(document)
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(result.standardError.hasPrefix("ssvcctl: "))
        #expect(result.standardError.contains(problem), "\(result.standardError)")
    }

    @Test("null values count as absent, not as errors")
    func nullValues() async throws {
        let result = try await evaluate(#"{"SSVCLatestVersionKey":"1.1","SSVCLatestVersionNumber":null,"SSVCMinimumSupportedVersionNumber":null,"SSVCLatestVersionAvailableSince":null}"#)
        #expect(result.status == 10)
    }

    @Test("10 MiB of white space is refused by size, and by content when allowed in")
    func hugeWhitespace() async throws {
        let response = try folder.file("big.json", Data(repeating: 0x20, count: 10 << 20))
        let capped = try await Executable.run("ssvcctl", ["evaluate", "--response", response, "--version", "1.0"])
        #expect(capped.status == 1)
        #expect(capped.standardError.contains("is larger than 1048576 bytes"))

        let allowed = try await Executable.run("ssvcctl", ["evaluate", "--response", response, "--version", "1.0", "--max-response-bytes", "20000000"])
        #expect(allowed.status == 1)
        #expect(allowed.standardError.contains("the document is only white space"))
    }

    @Test("a missing document exits 1 naming the file")
    func missingFile() async throws {
        let result = try await Executable.run("ssvcctl", ["evaluate", "--response", "/nonexistent/r.json", "--version", "1.0"])
        #expect(result.status == 1)
        #expect(result.standardError == "ssvcctl: /nonexistent/r.json: cannot open /nonexistent/r.json: No such file or directory\n")
    }

    @Test("usage errors exit 64", arguments: [
        ["evaluate", "--version", "1.0"],
        ["evaluate", "--response", "-"],
        ["evaluate", "--response", "-", "--version", "1.0", "--format", "xml"],
        ["evaluate", "--response", "-", "--version", "1.0", "--property", "novalue"],
        ["evaluate", "--response", "-", "--version", "1.0", "--property", "=nokey"],
        ["evaluate", "--response", "-", "--version", "1.0", "--url", "ftp://h/c"],
        ["evaluate", "--response", "-", "--version", "1.0", "--now", "yesterday"],
        ["evaluate", "--response", "-", "--version", "1.0", "--version-scheme", "semver"],
        ["evaluate", "--response", "-", "--version", "1.0", "--version-number", "-1"],
        ["evaluate", "--response", "-", "--version", "1.0", "--signature", "/dev/null"],
        ["evaluate", "--response", "-", "--version", "1.0", "--public-key", "RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw"],
        ["evaluate", "--response", "-", "--version", "1.0", "--public-key", "RWQ", "--signature", "/dev/null"],
        ["evaluate", "--response", "-", "--version", "1.0", "--public-key-file", "/nonexistent.pub", "--signature", "/dev/null"],
        ["evaluate", "--response", "-", "--version", "1.0", "--max-signature-age-days", "3"],
        ["frobnicate"],
    ])
    func usage(arguments: [String]) async throws {
        let result = try await Executable.run("ssvcctl", arguments, input: Data("{}".utf8))
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
    }

    @Test("a document minisign signed, in either mode, passes --public-key and --signature; the report names key and time")
    func signed() async throws {
        let keys = try await MinisignKeyPair()
        let document = #"{"SSVCLatestVersionKey":"1.1"}"#
        for legacy in [false, true] {
            let signature = try await folder.file("response.json.minisig", try keys.sign(document, legacy: legacy))
            let text = try await evaluate(document, ["--public-key", keys.publicKey, "--signature", signature])
            #expect(text.status == 10, "\(text.standardError)")
            #expect(text.standardOutput.contains("signature          good, key \(keys.keyID), signed 20"), "\(text.standardOutput)")
            let json = try await json(try evaluate(document, ["--public-key-file", keys.publicKeyFile, "--signature", signature, "--json"]))
            #expect((json["signature"] as? [String: Any])?["keyId"] as? String == keys.keyID)
        }
    }

    @Test("a tampered document, another key, an old signature under --max-signature-age-days, a file too large: exit 1 with the reason")
    func rejectedSignatures() async throws {
        let keys = try await MinisignKeyPair()
        let other = try await MinisignKeyPair()
        let document = #"{"SSVCLatestVersionKey":"1.1"}"#
        let good = try await folder.file("good.minisig", try keys.sign(document, signedAt: instant("2026-01-10T00:00:00Z")))
        let cases: [(String, [String], String)] = [
            (#"{"SSVCLatestVersionKey":"1.2"}"#, ["--signature", good], "the signature by key \(keys.keyID) does not match the document"),
            await (document, ["--signature", try folder.file("other.minisig", try other.sign(document))],
             "signed by key \(other.keyID), which is not among public-keys (\(keys.keyID))"),
            (document, ["--signature", good, "--max-signature-age-days", "30", "--now", "2026-03-01T00:00:00Z"],
             "signed 2026-01-10, older than max-signature-age-days 30"),
            (document, ["--signature", try folder.file("big.minisig", String(repeating: "A", count: 5000))], "is larger than 4096 bytes"),
        ]
        for (body, arguments, reason) in cases {
            let result = try await evaluate(body, ["--public-key", keys.publicKey] + arguments)
            #expect(result.status == 1, "\(arguments): \(result.standardOutput)")
            #expect(result.standardError.contains(reason), "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
        let fresh = try await evaluate(document, ["--public-key", keys.publicKey, "--signature", good, "--max-signature-age-days", "30", "--now", "2026-02-01T00:00:00Z"])
        #expect(fresh.status == 10, "\(fresh.standardError)")
    }
}

/// A fixed time, for signatures made at it.
private func instant(_ text: String) -> Date {
    ISO8601DateFormatter().date(from: text)!
}
