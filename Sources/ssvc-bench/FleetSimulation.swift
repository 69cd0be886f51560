import FoundationEssentials
import SSVCCore

/// What a version server sees from a fleet: every machine runs the real
/// `SchedulePlanner` from the same start, and the requests are counted per
/// second and per minute.
package struct FleetSimulation: Sendable {
    package var machines: Int
    package var schedule: Schedule
    package var policy: SchedulePolicy
    /// How long before the start each machine last checked (overdue when
    /// longer than a period); nil for machines that never checked.
    package var lastCheckAge: TimeInterval?
    package var duration: TimeInterval

    package init(machines: Int, schedule: Schedule = .daily, policy: SchedulePolicy = SchedulePolicy(),
                lastCheckAge: TimeInterval? = 3 * 86_400, duration: TimeInterval = 86_400) {
        self.machines = machines
        self.schedule = schedule
        self.policy = policy
        self.lastCheckAge = lastCheckAge
        self.duration = duration
    }

    /// Peak requests in any one second and any one minute, and the total.
    package struct Load: Sendable, Equatable {
        package var peakPerSecond: Int
        package var peakPerMinute: Int
        package var requests: Int
    }

    /// The fleet as ssvcd schedules it: phases, catch-up window, regular
    /// phase points. Every check succeeds.
    package func withPlanner(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> Load {
        var times: [TimeInterval] = []
        for index in 0..<machines {
            let planner = SchedulePlanner(
                schedule: schedule, phase: SchedulePlanner.phase(machineID: "machine-\(index)", app: "app"), policy: policy
            )
            var history = CheckHistory(lastCheck: lastCheckAge.map { start.addingTimeInterval(-$0) })
            var now = start
            var atStart = true
            while let at = planner.plan(now: now, history: history, atStart: atStart, jitter: 0.5).at,
                  at.timeIntervalSince(start) < duration {
                times.append(at.timeIntervalSince(start))
                history = CheckHistory(lastCheck: at, lastFetch: at)
                now = at
                atStart = false
            }
        }
        return Self.load(times)
    }

    /// The naive fleet: check at once when overdue, then every period.
    package func checkingAtOnce() -> Load {
        guard let period = schedule.fixedPeriod ?? schedule.period(at: Date(timeIntervalSince1970: 0)) else {
            return Load(peakPerSecond: 0, peakPerMinute: 0, requests: 0)
        }
        var times: [TimeInterval] = []
        for _ in 0..<machines {
            var at = (lastCheckAge ?? .infinity) >= period ? 0 : period - (lastCheckAge ?? 0)
            while at < duration {
                times.append(at)
                at += period
            }
        }
        return Self.load(times)
    }

    static func load(_ times: [TimeInterval]) -> Load {
        var seconds: [Int: Int] = [:]
        var minutes: [Int: Int] = [:]
        for time in times {
            seconds[Int(time.rounded(.down)), default: 0] += 1
            minutes[Int((time / 60).rounded(.down)), default: 0] += 1
        }
        return Load(peakPerSecond: seconds.values.max() ?? 0, peakPerMinute: minutes.values.max() ?? 0, requests: times.count)
    }
}
