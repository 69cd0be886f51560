import Foundation
import Testing
@testable import SSVCCore

@Suite("Turkcell: update selection")
struct TurkcellUpdateSelectionTests {
    func updates(_ entries: String) -> String {
        #"{"packageName":"com.example.app","updates":[\#(entries)]}"#
    }

    @Test("forceUpdate or forceExit (true, \"true\" or \"1\") requires", arguments: [
        #"{"targetPackageUrl":"u","forceUpdate":true}"#, #"{"targetPackageUrl":"u","forceUpdate":"true"}"#,
        #"{"targetPackageUrl":"u","forceUpdate":"1"}"#, #"{"targetPackageUrl":"u","forceUpdate":1}"#,
        #"{"forceExit":true}"#,
    ])
    func forced(entry: String) throws {
        #expect(try TurkcellFixture.decide(updates(entry)).status == .updateRequired)
    }

    @Test("without force, an update is available", arguments: [
        #"{"targetPackageUrl":"u"}"#, #"{"targetWebsiteUrl":"u","forceUpdate":false}"#,
        #"{"targetPackageUrl":"u","forceUpdate":"false"}"#, #"{"targetPackageUrl":"u","forceUpdate":"0"}"#,
    ])
    func optional(entry: String) throws {
        #expect(try TurkcellFixture.decide(updates(entry)).status == .updateAvailable)
    }

    @Test("an entry with neither a target URL nor forceExit does not count")
    func invalidEntrySkipped() throws {
        #expect(try TurkcellFixture.decide(updates(#"{"forceUpdate":true},{"targetPackageUrl":"  "}"#)).status == .upToDate)
        let decision = try TurkcellFixture.decide(updates(#"{"forceUpdate":true},{"targetWebsiteUrl":"https://w"}"#))
        #expect(decision.status == .updateAvailable)
        #expect(decision.description?.targetUrl == "https://w")
    }

    @Test("the first applying entry decides")
    func firstWins() throws {
        let decision = try TurkcellFixture.decide(updates(#"""
            {"filters":{"deviceOsName":"windows"},"targetPackageUrl":"a","forceUpdate":true},
            {"targetPackageUrl":"b","targetVersionName":"1.5"},
            {"targetPackageUrl":"c","forceUpdate":true}
            """#))
        #expect(decision.status == .updateAvailable)
        #expect(decision.description?.targetUrl == "b")
        #expect(decision.latestVersion == "1.5")
    }

    @Test("an entry targeting the running version or older does not apply")
    func targetVersions() throws {
        let context = TurkcellFixture.context(key: "2.0", number: 20)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionCode":20}"#), context).status == .upToDate)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionCode":"21"}"#), context).status == .updateAvailable)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionName":"2.0.0"}"#), context).status == .upToDate)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionName":"2.10"}"#), context).status == .updateAvailable)
        let both = try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionName":"3.0","targetVersionCode":19}"#), context)
        #expect(both.status == .upToDate)
    }

    @Test("no update entries means up to date")
    func noUpdates() throws {
        #expect(try TurkcellFixture.decide(#"{"packageName":"com.example.app"}"#).status == .upToDate)
        #expect(try TurkcellFixture.decide(#"{"packageName":"com.example.app","updates":null}"#).status == .upToDate)
    }

    @Test("packageName must match the app id, white space removed")
    func packageName() throws {
        #expect(try TurkcellFixture.decide(#"{"packageName":" com.example .app "}"#).status == .upToDate)
        let error = #expect(throws: ResponseError.self) {
            try TurkcellFixture.decide(#"{"packageName":"com.other.app"}"#)
        }
        #expect(error?.description == "packageName 'com.other.app' does not match app-id 'com.example.app'")
    }
}
