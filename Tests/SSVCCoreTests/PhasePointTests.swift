import Foundation
import Testing
@testable import SSVCCore
import SSVCTestSupport

@Suite("schedule: phase points")
struct PhasePointTests {
    @Test("fixed periods fall on the phase point of each period", arguments: [
        (Schedule.hourly, 0.25, "2026-03-01T10:20:00Z", "2026-03-01T11:15:00Z"),
        (.hourly, 0.25, "2026-03-01T10:10:00Z", "2026-03-01T10:15:00Z"),
        (.hourly, 0.25, "2026-03-01T10:15:00Z", "2026-03-01T11:15:00Z"),
        (.daily, 0.5, "2026-03-01T13:00:00Z", "2026-03-02T12:00:00Z"),
        (.daily, 0.0, "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"),
        (.weekly, 0.0, "2026-03-01T00:00:00Z", "2026-03-05T00:00:00Z"),  // weeks count from Thursday 1970-01-01
    ])
    func fixed(schedule: Schedule, phase: Double, after: String, expected: String) {
        let planner = SchedulePlanner(schedule: schedule, phase: phase)
        #expect(planner.nextPhasePoint(after: utc(after)) == utc(expected))
    }

    @Test("monthly points scale with the month's length, across month ends and leap years", arguments: [
        (0.5, "2026-01-01T00:00:00Z", "2026-01-16T12:00:00Z"),  // 31 days
        (0.5, "2026-01-20T00:00:00Z", "2026-02-15T00:00:00Z"),  // 28 days
        (0.5, "2028-01-20T00:00:00Z", "2028-02-15T12:00:00Z"),  // 29 days, leap year
        (0.99, "2026-02-28T00:00:00Z", "2026-02-28T17:16:48Z"),
        (0.99, "2026-02-28T18:00:00Z", "2026-03-31T16:33:36Z"),
        (0.0, "2026-12-15T00:00:00Z", "2027-01-01T00:00:00Z"),  // year end
        (0.0, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"),
    ])
    func monthly(phase: Double, after: String, expected: String) {
        let planner = SchedulePlanner(schedule: .monthly, phase: phase)
        #expect(planner.nextPhasePoint(after: utc(after)) == utc(expected))
    }

    @Test("a month is overdue on the same day of the next month, clamped to its length")
    func monthlyOverdue() {
        let planner = SchedulePlanner(schedule: .monthly, phase: 0)
        #expect(!planner.isOverdue(lastCheck: utc("2026-01-31T10:00:00Z"), now: utc("2026-02-28T09:59:59Z")))
        #expect(planner.isOverdue(lastCheck: utc("2026-01-31T10:00:00Z"), now: utc("2026-02-28T10:00:00Z")))
        #expect(planner.isOverdue(lastCheck: utc("2028-01-31T10:00:00Z"), now: utc("2028-02-29T10:00:00Z")))
        #expect(!planner.isOverdue(lastCheck: utc("2026-12-15T00:00:00Z"), now: utc("2027-01-14T23:00:00Z")))
        #expect(planner.isOverdue(lastCheck: utc("2026-12-15T00:00:00Z"), now: utc("2027-01-15T00:00:00Z")))
    }

    @Test("the phase is stable per machine and app, and spread over [0, 1)")
    func phases() {
        // FNV-1a 64 of "m1\0a" mixed by SplitMix64's finalizer is
        // 0x4f9400ea602076ed; its top 53 bits over 2^53, computed
        // independently in Python.
        #expect(SchedulePlanner.phase(machineID: "m1", app: "a") == 0.31085210535104735)
        #expect(SchedulePlanner.phase(machineID: "m1", app: "a") != SchedulePlanner.phase(machineID: "m2", app: "a"))
        let phases = (0..<10_000).map { SchedulePlanner.phase(machineID: "machine-\($0)", app: "app") }
        #expect(phases.allSatisfy { $0 >= 0 && $0 < 1 })
        var buckets = [Int](repeating: 0, count: 10)
        for phase in phases { buckets[Int(phase * 10)] += 1 }
        #expect(buckets.allSatisfy { (850...1_150).contains($0) }, "\(buckets)")
    }

    @Test("the apps of one machine are spread too, names that differ in their last character included")
    func phasesOfOneMachine() {
        let phases = (0..<10_000).map { SchedulePlanner.phase(machineID: "m1", app: "app\($0)") }
        var buckets = [Int](repeating: 0, count: 10)
        for phase in phases { buckets[Int(phase * 10)] += 1 }
        #expect(buckets.allSatisfy { (850...1_150).contains($0) }, "\(buckets)")
        // app1…app9: nine instants, no two within a thousandth of the period.
        let nine = (1...9).map { SchedulePlanner.phase(machineID: "m1", app: "app\($0)") }.sorted()
        #expect(zip(nine.dropFirst(), nine).allSatisfy { $0 - $1 > 0.001 }, "\(nine)")
    }
}
