import Foundation
import SSVCTestSupport
import Testing

/// `ssvcctl evaluate` on Turkcell and App Store documents.
@Suite("ssvcctl evaluate: turkcell and itunes", .processSlot)
struct EvaluateFormatsTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    func turkcell(_ filters: String, _ extra: [String]) async throws -> CommandResult {
        let document = #"{"packageName":"com.example.app","updates":[{"filters":\#(filters),"targetPackageUrl":"https://x/pkg","descriptions":{"*":"New version"}}]}"#
        let path = try folder.file("turkcell.json", document)
        return try await Executable.run("ssvcctl", ["evaluate", "--format", "turkcell", "--response", path, "--app-id", "com.example.app"] + extra)
    }

    @Test("the Updater's filter cases, with --property standing in for the machine", arguments: [
        (#"{"deviceIsTablet":"false","deviceLanguage":"en"}"#, ["--version", "1.0", "--language", "en"], Int32(10)),
        (#"{"deviceModel":"iPod2*"}"#, ["--version", "1.0", "--property", "deviceModel=iPad2,1"], 0),
        (#"{"deviceOsVersion":"5.1,6.0,6.1"}"#, ["--version", "1.0", "--property", "deviceOsVersion=6.0"], 10),
        (#"{"deviceOsVersion":"5.1,6.*"}"#, ["--version", "1.0", "--property", "deviceOsVersion=4.3"], 0),
        (#"{"appVersionName":"*"}"#, ["--version", "1.0"], 10),
        (#"{"wrongFilterKey":"false"}"#, ["--version", "1.0"], 0),
        (#"{"appVersionName":"1.0,!1.0,2.0"}"#, ["--version", "3.0"], 0),
        (#"{"deviceLanguage":"''"}"#, ["--version", "1.0", "--language", ""], 10),
        (#"{"deviceLanguage":"!''"}"#, ["--version", "1.0", "--language", "en"], 10),
    ])
    func filterCases(filters: String, arguments: [String], status: Int32) async throws {
        let result = try await turkcell(filters, arguments)
        #expect(result.status == status, "\(result.standardError)")
    }

    @Test("--property KEY= sets an empty value, which '' matches and !'' refuses", arguments: [
        (#"{"x-channel":"''"}"#, Int32(10)),
        (#"{"x-channel":"!''"}"#, 0),
        (#"{"x-channel":"beta"}"#, 0),
    ])
    func emptyPropertyValue(filters: String, status: Int32) async throws {
        let result = try await turkcell(filters, ["--version", "1.0", "--property", "x-channel="])
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }

    @Test("--property splits at the first '=': the rest, '=' included, is the value")
    func propertyValueWithEquals() async throws {
        let result = try await turkcell(#"{"x-query":"a=b"}"#, ["--version", "1.0", "--property", "x-query=a=b"])
        #expect(result.status == 10, "\(result.standardError)")
    }

    @Test("--json shows the description and the messages that would be shown")
    func jsonDescriptionAndMessages() async throws {
        let document = #"""
            {"packageName":"com.example.app",
             "updates":[{"targetPackageUrl":"https://x/pkg","forceUpdate":"true",
                         "descriptions":{"tr":{"message":"Yeni"},"*":{"message":"New","whatIsNew":"Fixes","warnings":"Restart"}}}],
             "messages":[{"id":"m1","descriptions":{"*":{"title":"Offer","message":"Try"}},"targetWebsiteUrl":"https://w",
                          "displayAfterDate":"2012-01-01","displayBeforeDate":"2013-01-01 01:01"}]}
            """#
        let path = try folder.file("t.json", document)
        let arguments = ["evaluate", "--format", "turkcell", "--response", path, "--app-id", "com.example.app", "--version", "1.0", "--language", "en", "--json"]
        let inside = try await Executable.run("ssvcctl", arguments + ["--now", "2012-06-06T00:00:00Z"])
        #expect(inside.status == 11)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(inside.standardOutput.utf8)) as? [String: Any])
        let description = try #require(object["description"] as? [String: Any])
        #expect(description["message"] as? String == "New")
        #expect(description["whatIsNew"] as? String == "Fixes")
        #expect(description["warnings"] as? String == "Restart")
        #expect(description["targetUrl"] as? String == "https://x/pkg")
        let messages = try #require(object["messages"] as? [[String: Any]])
        #expect(messages.count == 1)
        #expect(messages.first?["title"] as? String == "Offer")
        #expect(messages.first?["targetUrl"] as? String == "https://w")

        let outside = try await Executable.run("ssvcctl", arguments + ["--now", "2013-06-05T00:00:00Z"])
        let later = try #require(try JSONSerialization.jsonObject(with: Data(outside.standardOutput.utf8)) as? [String: Any])
        #expect((later["messages"] as? [Any])?.isEmpty == true)
    }

    @Test("a packageName for another app is rejected with exit 1")
    func wrongPackage() async throws {
        let path = try folder.file("t.json", #"{"packageName":"com.other"}"#)
        let result = try await Executable.run("ssvcctl", ["evaluate", "--format", "turkcell", "--response", path, "--app-id", "com.example.app", "--version", "1"])
        #expect(result.status == 1)
        #expect(result.standardError == "ssvcctl: \(path): packageName 'com.other' does not match app-id 'com.example.app'\n")
    }

    @Test("malformed Turkcell documents exit 1 naming the problem", arguments: [
        (#"{"packageName":"a","updates":"none"}"#, #"updates: expected an array, found the string "none""#),
        (#"{"packageName":"a","updates":[{"descriptions":{"en":5}}]}"#, "updates[0].descriptions.en: expected an object or a string, found 5"),
        (#"{"packageName":"a","messages":[{"displayAfterDate":"tomorrow"}]}"#, "messages[0].displayAfterDate: 'tomorrow' is not a date"),
    ])
    func malformedTurkcell(document: String, problem: String) async throws {
        let path = try folder.file("t.json", document)
        let result = try await Executable.run("ssvcctl", ["evaluate", "--format", "turkcell", "--response", path, "--app-id", "a", "--version", "1"])
        #expect(result.status == 1)
        #expect(result.standardError.contains(problem), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test("turkcell needs --app-id")
    func appIDRequired() async throws {
        let result = try await Executable.run("ssvcctl", ["evaluate", "--format", "turkcell", "--response", "-", "--version", "1"])
        #expect(result.status == 64)
    }

    @Test("turkcell shows its request URL")
    func turkcellRequest() async throws {
        let path = try folder.file("t.json", #"{"packageName":"a b"}"#)
        let result = try await Executable.run("ssvcctl", ["evaluate", "--format", "turkcell", "--response", path, "--app-id", "ab", "--version", "1", "--url", "https://h/updater.json", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["request"] as? String == "https://h/updater.json?appPackageName=ab&deviceOsName=linux")
    }

    @Test("itunes: numeric comparison by default, app not found, minimum release age")
    func itunes() async throws {
        let lookup = try folder.file("l.json", #"{"resultCount":1,"results":[{"version":"2.10","currentVersionReleaseDate":"2026-11-20T10:00:00Z","releaseNotes":"Fixes","trackViewUrl":"https://apps/x"}]}"#)
        let base = ["evaluate", "--format", "itunes", "--response", lookup, "--version", "2.9", "--now", "2026-11-22T00:00:00Z"]
        #expect(try await Executable.run("ssvcctl", base).status == 10)
        #expect(try await Executable.run("ssvcctl", base + ["--version-scheme", "semver"]).status == 64)
        let young = try await Executable.run("ssvcctl", base + ["--min-release-age-days", "7", "--json"])
        #expect(young.status == 0)
        #expect(young.standardOutput.contains("younger than 7 days"))

        let empty = try folder.file("e.json", #"{"resultCount":0,"results":[]}"#)
        let missing = try await Executable.run("ssvcctl", ["evaluate", "--format", "itunes", "--response", empty, "--version", "1"])
        #expect(missing.status == 1)
        #expect(missing.standardError == "ssvcctl: \(empty): app not found\n")
    }
}
