import Foundation
@testable import SSVCCore
import Testing

@Suite("format json: any document read with pointers")
struct PointerDocumentTests {
    func settings(_ version: String, date: String? = nil, minimum: String? = nil, url: String? = nil) throws -> FormatSettings {
        let pointer = { (text: String?) throws in try text.map { try JSONPointer(parsing: $0) } }
        return FormatSettings(pointers: PointerDocument.Settings(
            version: try JSONPointer(parsing: version), date: try pointer(date), minimumVersion: try pointer(minimum), url: try pointer(url)
        ))
    }

    @Test("PyPI's project JSON: /info/version, its upload time and release page")
    func pypi() throws {
        let settings = try settings("/info/version", date: "/urls/1/upload_time_iso_8601", url: "/info/release_url")
        let decision = try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: sourceContext("24.8.0", settings: settings)).decision
        #expect(decision.status == .updateAvailable)
        #expect(decision.latestVersion == "24.10.0")
        #expect(decision.availableSince.map(RFC3339.format) == "2024-10-07T19:44:43Z")
        #expect(decision.description?.targetUrl == "https://pypi.org/project/black/24.10.0/")
        let same = try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: sourceContext("24.10.0", settings: settings))
        #expect(same.decision.status == .upToDate)
    }

    @Test("npm's latest document: /version; ahead when running newer")
    func npm() throws {
        let settings = try settings("/version")
        #expect(try ResponseFormat.json.evaluate(SourceFixture.bytes("npm-latest.json"), context: sourceContext("1.2.0", settings: settings)).decision.status == .updateAvailable)
        #expect(try ResponseFormat.json.evaluate(SourceFixture.bytes("npm-latest.json"), context: sourceContext("1.4", settings: settings)).decision.status == .ahead)
    }

    @Test("a tags list's /0/name, a minimum version, and Unix seconds for the date")
    func tagsAndMinimum() throws {
        let body = Array(#"[{"name":"2.1.0","minimum":"2.0","at":1800000000},{"name":"2.0.9"}]"#.utf8)
        let settings = try settings("/0/name", date: "/0/at", minimum: "/0/minimum")
        let required = try ResponseFormat.json.evaluate(body, context: sourceContext("1.9", settings: settings)).decision
        #expect(required.status == .updateRequired)
        #expect(required.availableSince == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(try ResponseFormat.json.evaluate(body, context: sourceContext("2.0.1", settings: settings)).decision.status == .updateAvailable)
    }

    @Test("a pointer to nothing or to the wrong type rejects the document, naming key and pointer", arguments: [
        ("/info/versions", nil, nil, "version-pointer '/info/versions': refers to nothing in the document"),
        ("/info/yanked", nil, nil, "version-pointer '/info/yanked': expected a string, found false"),
        ("/info", nil, nil, "version-pointer '/info': expected a string, found an object"),
        ("/info/version", "/info/name", nil, "date-pointer '/info/name': 'black' is not an RFC 3339 time"),
        ("/info/version", "/last_serial/x", nil, "date-pointer '/last_serial/x': refers to nothing in the document"),
        ("/info/version", "/info/classifiers", nil, "date-pointer '/info/classifiers': expected an RFC 3339 time or Unix seconds, found an array"),
        ("/info/version", nil, "/vulnerabilities", "url-pointer '/vulnerabilities': expected a string, found an array"),
    ] as [(String, String?, String?, String)])
    func pointerErrors(version: String, date: String?, url: String?, message: String) throws {
        let settings = try settings(version, date: date, url: url)
        #expect(throws: ResponseError.self) {
            try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: sourceContext("1.0", settings: settings))
        }
        do {
            _ = try ResponseFormat.json.evaluate(SourceFixture.bytes("pypi-project.json"), context: sourceContext("1.0", settings: settings))
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a version its scheme cannot read is refused, naming the pointer")
    func schemeRefusal() throws {
        let body = Array(#"{"v":"not a version!"}"#.utf8)
        let settings = try settings("/v")
        do {
            _ = try ResponseFormat.json.evaluate(body, context: sourceContext("1.0", scheme: .semver, settings: settings))
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("version-pointer '/v': "), "\(error)")
        }
    }
}
