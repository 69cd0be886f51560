import Foundation
import Testing
@testable import SSVCCore

/// Skipped, and shown as skipped, when the suite is missing; under
/// `CI=true` it runs and fails instead.
@Suite(
    "TOML: the toml-test suite",
    .enabled(
        if: TOMLTestSuite.locate() != nil || TOMLTestSuite.isRequired,
        "the toml-test suite is missing: install golang-github-burntsushi-toml-dev or set TOML_TEST_DIR"
    )
)
struct TOMLTestSuiteTests {
    private func suite() throws -> TOMLTestSuite {
        try #require(TOMLTestSuite.locate(), "the toml-test suite is missing: install golang-github-burntsushi-toml-dev or set TOML_TEST_DIR")
    }

    @Test("every valid case parses to its expected JSON")
    func valid() throws {
        let suite = try suite()
        let cases = suite.cases("valid")
        #expect(!cases.isEmpty)
        var passed = 0
        var skipped = 0
        for path in cases {
            if let reason = TOMLTestSuite.skippedValid[path] {
                print("toml-test valid: skipped \(path): \(reason)")
                skipped += 1
                continue
            }
            do {
                let table = try TOMLParser().parse(try suite.bytes(path))
                let have = try JSONSerialization.jsonObject(with: Data(table.taggedJSON.utf8))
                if let difference = TaggedJSONComparison.difference(try suite.expected(path), have) {
                    Issue.record("\(path): \(difference)")
                } else {
                    passed += 1
                }
            } catch {
                Issue.record("\(path): refused: \(error)")
            }
        }
        print("toml-test valid: \(passed) passed, \(skipped) skipped, \(cases.count - passed - skipped) failed")
    }

    @Test("every invalid case is refused")
    func invalid() throws {
        let suite = try suite()
        let cases = suite.cases("invalid")
        #expect(!cases.isEmpty)
        var refused = 0
        var skipped = 0
        for path in cases {
            if let reason = TOMLTestSuite.skippedInvalid[path] {
                print("toml-test invalid: skipped \(path): \(reason)")
                skipped += 1
                continue
            }
            do {
                let table = try TOMLParser().parse(try suite.bytes(path))
                Issue.record("\(path): accepted as \(table.taggedJSON)")
            } catch {
                refused += 1
            }
        }
        print("toml-test invalid: \(refused) refused, \(skipped) skipped, \(cases.count - refused - skipped) accepted")
    }

    @Test("every valid case written back as TOML parses to the same tree")
    func roundTrip() throws {
        let suite = try suite()
        var checked = 0
        for path in suite.cases("valid") where TOMLTestSuite.skippedValid[path] == nil {
            let table = try TOMLParser().parse(try suite.bytes(path))
            let written = TOMLWriter.write(table)
            do {
                let again = try TOMLParser().parse(written)
                #expect(again.taggedJSON == table.taggedJSON, "\(path) changed on the way round:\n\(written)")
                checked += 1
            } catch {
                Issue.record("\(path): the writer's text is refused: \(error)\n\(written)")
            }
        }
        print("toml-test round trip: \(checked) cases")
    }

    @Test("the comparison tells date-times apart by the instant they denote")
    func dateComparison() {
        let same = [
            ("1979-05-27 07:32:00Z", "1979-05-27T07:32:00Z"),
            ("1979-05-27t07:32:00z", "1979-05-27T07:32:00Z"),
            ("1987-07-05T17:45:56.6000Z", "1987-07-05T17:45:56.6Z"),
            ("1987-07-05T17:45:56-00:00", "1987-07-05T17:45:56Z"),
            ("1987-07-05T19:45:56+02:00", "1987-07-05T17:45:56Z"),
        ]
        for (a, b) in same {
            #expect(TaggedJSONComparison.dateKey("datetime", a) == TaggedJSONComparison.dateKey("datetime", b), "\(a) vs \(b)")
        }
        #expect(TaggedJSONComparison.dateKey("datetime", "1987-07-05T17:45:56Z") != TaggedJSONComparison.dateKey("datetime", "1987-07-05T17:45:57Z"))
        #expect(TaggedJSONComparison.dateKey("time-local", "10:32:00.5550") == TaggedJSONComparison.dateKey("time-local", "10:32:00.555"))
        #expect(TaggedJSONComparison.floatsEqual("+inf", "inf"))
        #expect(!TaggedJSONComparison.floatsEqual("-inf", "inf"))
        #expect(TaggedJSONComparison.floatsEqual("nan", "nan"))
    }
}
