import Foundation
import Testing
@testable import SSVCCore

@Suite("civil time")
struct CivilTimeTests {
    @Test("converts dates to instants", arguments: [
        ("1970-01-01", 0.0), ("2013-01-01 01:01", 1_357_002_060), ("2000-02-29", 951_782_400),
        ("2012-06-06", 1_338_940_800), ("1969-12-31 23:59", -60), ("2038-01-19 03:14", 2_147_483_640),
    ])
    func converts(text: String, seconds: Double) {
        #expect(CivilTime.parseDayOrMinute(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test("refuses impossible or malformed dates", arguments: [
        "2001-02-29", "2013-13-01", "2013-00-10", "2013-04-31", "2013-01-01 24:00", "2013-01-01 10:60",
        "13-01-01", "2013-1-1", "2013-01-01T10:00", "2013-01-01 10:00:00", "", "2013-01-01 1:00",
    ])
    func refuses(text: String) {
        #expect(CivilTime.parseDayOrMinute(text) == nil)
    }

    @Test("leap years")
    func leapYears() {
        #expect(CivilTime.isLeap(2000) && CivilTime.isLeap(2024) && !CivilTime.isLeap(1900) && !CivilTime.isLeap(2023))
        #expect(CivilTime.daysIn(month: 2, year: 2024) == 29)
        #expect(CivilTime.daysIn(month: 2, year: 2100) == 28)
    }
}
