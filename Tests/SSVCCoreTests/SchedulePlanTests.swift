import Foundation
import Testing
@testable import SSVCCore

@Suite("schedule: plans")
struct SchedulePlanTests {
    let now = utc("2026-06-10T12:00:00Z")

    func planner(_ schedule: Schedule = .daily, phase: Double = 0.5, policy: SchedulePolicy = SchedulePolicy()) -> SchedulePlanner {
        SchedulePlanner(schedule: schedule, phase: phase, policy: policy)
    }

    @Test("never: manual checks only")
    func never() {
        let plan = planner(.never).plan(now: now, history: CheckHistory(lastCheck: now, consecutiveFailures: 3), atStart: true, jitter: 0.5)
        #expect(plan == NextCheck(at: nil, reason: .manualOnly))
    }

    @Test("never checked: within min(period, first-check window) at the phase point")
    func firstCheck() {
        #expect(planner(phase: 0.5).plan(now: now, history: CheckHistory(), atStart: true, jitter: 0)
            == NextCheck(at: now.addingTimeInterval(300), reason: .firstCheck))
        let window0 = planner(policy: SchedulePolicy(firstCheckWindow: 0, catchUpWindow: 0))
        #expect(window0.plan(now: now, history: CheckHistory(), atStart: true, jitter: 0).at == now)
        let hourlyLongWindow = planner(.hourly, phase: 0.5, policy: SchedulePolicy(firstCheckWindow: 86_400))
        #expect(hourlyLongWindow.plan(now: now, history: CheckHistory(), atStart: true, jitter: 0).at == now.addingTimeInterval(1_800))
    }

    @Test("checked an hour ago on a daily schedule: no check at start")
    func recentCheck() throws {
        let plan = planner().plan(now: now, history: CheckHistory(lastCheck: now.addingTimeInterval(-3_600)), atStart: true, jitter: 0)
        #expect(plan.reason == .schedule)
        let at = try #require(plan.at)
        #expect(at.timeIntervalSince(now) >= 11 * 3_600)
        #expect(at == utc("2026-06-11T12:00:00Z"))
    }

    @Test("checked three days ago on a daily schedule: catch-up within the window")
    func catchUp() throws {
        let plan = planner(phase: 0.25).plan(now: now, history: CheckHistory(lastCheck: now.addingTimeInterval(-3 * 86_400)), atStart: true, jitter: 0)
        #expect(plan == NextCheck(at: now.addingTimeInterval(900), reason: .catchUp))
    }

    @Test("regular checks stay between half and one and a half periods apart", arguments: [0.0, 0.3, 0.7, 0.999])
    func spacing(phase: Double) throws {
        for schedule in [Schedule.hourly, .daily, .weekly] {
            let period = try #require(schedule.fixedPeriod)
            var last = now
            for _ in 0..<20 {
                let at = try #require(planner(schedule, phase: phase).plan(now: last, history: CheckHistory(lastCheck: last), atStart: false, jitter: 0).at)
                let gap = at.timeIntervalSince(last)
                #expect(gap > period / 2 && gap <= period * 1.5, "\(schedule) gap \(gap)")
                last = at
            }
        }
    }

    @Test("a machine asleep for a week checks at once on waking, then falls back on its phase")
    func asleepForAWeek() throws {
        let p = planner(.daily, phase: 0.5)
        let lastCheck = utc("2026-06-01T12:00:00Z")
        let due = try #require(p.plan(now: lastCheck, history: CheckHistory(lastCheck: lastCheck), atStart: false, jitter: 0).at)
        let woke = due.addingTimeInterval(7 * 86_400)
        // the timer fired late: the plan made before sleep is in the past, and a new plan is never before now
        let replanned = p.plan(now: woke, history: CheckHistory(lastCheck: lastCheck), atStart: false, jitter: 0)
        #expect(replanned.at == woke)
        let after = try #require(p.plan(now: woke, history: CheckHistory(lastCheck: woke), atStart: false, jitter: 0).at)
        #expect(after.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 43_200)
    }

    @Test("a last check in the future (clock set back) counts as now")
    func clockSetBack() throws {
        let future = now.addingTimeInterval(365 * 86_400)
        let plan = planner(.daily).plan(now: now, history: CheckHistory(lastCheck: future, lastFetch: future), atStart: true, jitter: 0)
        // The future check counts as now: the first phase point (12:00) after half a day.
        #expect(plan.at == utc("2026-06-11T12:00:00Z"), "\(plan)")
        let failing = planner(.daily).plan(now: now, history: CheckHistory(lastCheck: future, consecutiveFailures: 2), atStart: true, jitter: 0)
        // Two failures, no jitter: half of two minutes after now.
        #expect(failing.at == utc("2026-06-10T12:01:00Z"), "\(failing)")
    }

    @Test("failures back off from one minute, doubling, capped at min(period, 1 h)")
    func backoff() {
        let daily = planner(.daily)
        #expect((1...8).map { daily.backoff(failures: $0, jitter: 1) } == [60, 120, 240, 480, 960, 1_920, 3_600, 3_600])
        #expect(daily.backoff(failures: 1, jitter: 0) == 30)
        #expect(daily.backoff(failures: 50, jitter: 0.5) == 2_700)
        let plan = daily.plan(now: now, history: CheckHistory(lastCheck: now, consecutiveFailures: 3), atStart: false, jitter: 1)
        #expect(plan == NextCheck(at: now.addingTimeInterval(240), reason: .retry))
    }

    @Test("50 consecutive failures never overflow and never exceed the cap")
    func fiftyFailures() throws {
        for schedule in [Schedule.hourly, .daily, .weekly, .monthly] {
            var previous = 0.0
            for failures in 1...50 {
                let delay = planner(schedule).backoff(failures: failures, jitter: 1)
                #expect(delay >= previous && delay <= 3_600)
                previous = delay
            }
        }
    }

    @Test("Retry-After is honoured when later than the backoff, and capped at 24 h")
    func retryAfter() {
        let history = CheckHistory(lastCheck: now, consecutiveFailures: 1, retryNotBefore: now.addingTimeInterval(120))
        #expect(planner().plan(now: now, history: history, atStart: false, jitter: 0) == NextCheck(at: now.addingTimeInterval(120), reason: .retryAfter))
        let early = CheckHistory(lastCheck: now, consecutiveFailures: 4, retryNotBefore: now.addingTimeInterval(5))
        #expect(planner().plan(now: now, history: early, atStart: false, jitter: 1).reason == .retry)
        let far = CheckHistory(lastCheck: now, consecutiveFailures: 1, retryNotBefore: now.addingTimeInterval(30 * 86_400))
        #expect(planner().plan(now: now, history: far, atStart: false, jitter: 0).at == now.addingTimeInterval(86_400))
    }

    @Test("nothing is planned inside the minimum interval of the last fetch")
    func minimumInterval() {
        let p = planner(.hourly, policy: SchedulePolicy(firstCheckWindow: 0, catchUpWindow: 0, minimumInterval: 30))
        let history = CheckHistory(lastCheck: now, lastFetch: now, consecutiveFailures: 1)
        #expect(p.plan(now: now, history: history, atStart: false, jitter: 0).at == now.addingTimeInterval(30))
    }

    @Test("hourly, daily, weekly and monthly are overdue after exactly one period")
    func overdue() {
        for (schedule, period) in [(Schedule.hourly, 3_600.0), (.daily, 86_400), (.weekly, 604_800)] {
            #expect(!planner(schedule).isOverdue(lastCheck: now, now: now.addingTimeInterval(period - 1)))
            #expect(planner(schedule).isOverdue(lastCheck: now, now: now.addingTimeInterval(period)))
        }
        #expect(!planner(.never).isOverdue(lastCheck: .distantPast, now: now))
    }
}
