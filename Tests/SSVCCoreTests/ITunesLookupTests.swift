import Foundation
import Testing
@testable import SSVCCore

@Suite("App Store lookup format")
struct ITunesLookupTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func decide(_ json: String, key: String = "2.9", minimumAge: UInt? = nil) throws -> Decision {
        let context = EvaluationContext(
            running: RunningVersion(key: key, scheme: ResponseFormat.itunes.defaultVersionScheme),
            appID: "x", locale: LocaleSettings(language: "en", country: ""), now: Self.now,
            minimumReleaseAgeDays: minimumAge
        )
        return try ResponseFormat.itunes.evaluate(Array(json.utf8), context: context).decision
    }

    func lookup(version: String, released: String = "2027-01-10T08:00:00Z") -> String {
        #"{"resultCount":1,"results":[{"version":"\#(version)","currentVersionReleaseDate":"\#(released)","minimumOsVersion":"12.0","releaseNotes":"Fixes","trackViewUrl":"https://apps.example/app"}]}"#
    }

    @Test("the latest version is results[0].version, compared numerically by default")
    func compares() throws {
        let decision = try decide(lookup(version: "2.10"))
        #expect(decision.status == .updateAvailable)
        #expect(decision.latestVersion == "2.10")
        #expect(decision.description == UpdateDescription(whatIsNew: "Fixes", targetUrl: "https://apps.example/app"))
        #expect(decision.availableSince == Date(timeIntervalSince1970: 1_799_568_000), "2027-01-10T08:00:00Z")
        #expect(try decide(lookup(version: "2.9")).status == .upToDate)
        #expect(try decide(lookup(version: "2.8")).status == .ahead)
    }

    @Test("resultCount 0 or no results: app not found", arguments: [
        #"{"resultCount":0,"results":[]}"#, #"{"results":[]}"#, #"{"resultCount":0}"#,
    ])
    func notFound(json: String) {
        let error = #expect(throws: ResponseError.self) { try decide(json) }
        #expect(error?.description == "app not found")
    }

    @Test("malformed lookups name the path", arguments: [
        (#"{"resultCount":1,"results":[{}]}"#, "results[0].version: missing"),
        (#"{"resultCount":1,"results":[{"version":2}]}"#, "results[0].version: expected a string, found 2"),
        (#"{"resultCount":1,"results":[{"version":"1","currentVersionReleaseDate":"yesterday"}]}"#,
         "results[0].currentVersionReleaseDate: 'yesterday' is not an RFC 3339 time"),
        (#"{"resultCount":1,"results":{}}"#, "results: expected an array, found an object"),
        (#"{"resultCount":"1","results":[]}"#, #"resultCount: expected an unsigned integer, found the string "1""#),
    ])
    func malformed(json: String, message: String) {
        let error = #expect(throws: ResponseError.self) { try decide(json) }
        #expect(error?.description == message)
    }

    @Test("a version younger than the minimum release age is not offered yet")
    func minimumReleaseAge() throws {
        // now is 2027-01-15T08:00:00Z; released five days earlier
        let young = try decide(lookup(version: "3.0", released: "2027-01-10T08:00:00Z"), minimumAge: 7)
        #expect(young.status == .upToDate)
        #expect(young.note == "3.0 is younger than 7 days; offered from 2027-01-17T08:00:00Z")
        let old = try decide(lookup(version: "3.0", released: "2027-01-08T08:00:00Z"), minimumAge: 7)
        #expect(old.status == .updateAvailable)
    }
}
