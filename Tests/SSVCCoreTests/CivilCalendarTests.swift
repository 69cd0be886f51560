import Foundation
import Testing
@testable import SSVCCore

@Suite("civil calendar")
struct CivilCalendarTests {
    @Test("components and month starts agree with each other over 1,000 years of days")
    func roundTrip() {
        var day = -200_000
        while day < 200_000 {
            let date = Date(timeIntervalSince1970: TimeInterval(day) * 86_400 + 3_600)
            let (year, month, dayOfMonth) = CivilTime.components(of: date)
            #expect(CivilTime.date(year: year, month: month, day: dayOfMonth, hour: 1) == date)
            day += 97
        }
        #expect(CivilTime.monthStart(containing: utc("2026-12-31T23:59:59Z"), offset: 1) == utc("2027-01-01T00:00:00Z"))
        #expect(CivilTime.monthStart(containing: utc("2026-01-15T00:00:00Z"), offset: -1) == utc("2025-12-01T00:00:00Z"))
        #expect(CivilTime.monthStart(containing: utc("2026-03-15T00:00:00Z"), offset: -15) == utc("2024-12-01T00:00:00Z"))
    }
}
