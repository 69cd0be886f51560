import FoundationEssentials
@testable import SSVCCore
import Testing

@Suite("RFC 3339 times: read strictly, shown in UTC")
struct RFC3339Tests {
    @Test("valid forms, offsets and fractions read as the instant they name", arguments: [
        ("2026-01-02T03:04:05Z", 1_767_323_045.0),
        ("2026-01-02t03:04:05z", 1_767_323_045.0),
        ("2026-01-02 03:04:05Z", 1_767_323_045.0),
        ("2026-01-02T04:04:05+01:00", 1_767_323_045.0),
        ("2026-01-01T22:34:05-04:30", 1_767_323_045.0),
        ("2026-01-02T03:04:05.250Z", 1_767_323_045.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1970-01-01T00:00:00Z", 0.0),
        ("2016-12-31T23:59:60Z", 1_483_228_800.0),
        ("9999-12-31T23:59:59Z", 253_402_300_799.0),
        ("2026-12-31T23:30:00-01:00", 1_798_763_400.0),
        ("2024-02-29T23:00:00-01:00", 1_709_251_200.0),
        ("2026-01-02T03:04:05.5+00:00", 1_767_323_045.5),
    ])
    func valid(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(date.timeIntervalSince1970 == seconds)
    }

    @Test("impossible fields are refused, never rolled over", arguments: [
        "2026-02-30T25:61:00Z", "2026-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
        "2026-01-00T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-02T24:00:00Z", "2026-01-02T23:60:00Z", "2026-01-02T23:59:61Z",
        "2026-01-02T03:04:05+24:00", "2026-01-02T03:04:05+01:60", "2026-01-02T03:04:05", "2026-01-02T03:04:05.Z", "2026-01-02T03:04Z",
        "2026-1-02T03:04:05Z", "+2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z ", "2026-01-02T03:04:05+0100", "", "2026-01-02",
        "２０２６-01-02T03:04:05Z", "2100-02-29T00:00:00Z", "2026-06-31T00:00:00Z", "2026-01-02T03:04:05-00:60",
    ])
    func impossible(text: String) {
        #expect(RFC3339.parse(text) == nil, "\(text)")
    }

    @Test("shown in UTC, whole seconds; a time past year 9999 at its end, not as a six-digit year")
    func format() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_767_323_045.75)) == "2026-01-02T03:04:05Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 15_928_766_400_000)) == "9999-12-31T23:59:59Z")
    }
}
