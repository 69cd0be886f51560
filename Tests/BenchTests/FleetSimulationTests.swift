@testable import ssvc_bench
import FoundationEssentials
import SSVCCore
import Testing

@Suite("fleet load")
struct FleetSimulationTests {
    @Test("10,000 overdue machines starting together spread their catch-ups over the window")
    func catchUpSpreads() {
        let fleet = FleetSimulation(machines: 10_000)
        let planned = fleet.withPlanner()
        let naive = fleet.checkingAtOnce()
        #expect(naive.peakPerSecond == 10_000)
        // Evenly over the 3,600 s catch-up window: about 2.8 a second, 167 a minute.
        #expect(planned.peakPerSecond <= 12, "\(planned)")
        #expect(planned.peakPerMinute <= 215, "\(planned)")
        // Every machine checks on the first day: its catch-up, then once a day on its phase.
        #expect(planned.requests >= 10_000 && planned.requests <= 20_000, "\(planned)")
    }

    @Test("never-checked machines spread their first checks over the first-check window")
    func firstChecksSpread() {
        let fleet = FleetSimulation(machines: 5_000, lastCheckAge: nil)
        let planned = fleet.withPlanner()
        #expect(fleet.checkingAtOnce().peakPerSecond == 5_000)
        // Evenly over the 600 s first-check window: about 8 a second.
        #expect(planned.peakPerSecond <= 22, "\(planned)")
        #expect(planned.requests >= 5_000)
    }
}

@Suite("phased fleet")
struct PhasedFleetSimulationTests {
    @Test("10,000 machines follow the straight line within 2 points once each has checked, and all are offered by T + W")
    func followsTheLine() {
        let rollout = PhasedFleetSimulation(machines: 10_000).run()
        #expect(rollout.largestGap(rollout.ssvc) < 0.02, "\(rollout.largestGap(rollout.ssvc))")
        let last = rollout.last(rollout.ssvc)
        #expect(last != nil && last! <= rollout.window + rollout.period, "\(String(describing: last))")
        // No machine before its own time; none later than that or its first check after T, whichever is later.
        for (offered, due) in zip(rollout.ssvc, rollout.due) {
            guard let offered else { continue }
            #expect(offered >= due - 0.001, "offered at \(offered), due at \(due)")
            #expect(offered <= max(due, rollout.period) + 1, "offered at \(offered), due at \(due)")
        }
    }

    @Test("a required update reaches every machine within one period")
    func requiredAtOnce() {
        let rollout = PhasedFleetSimulation(machines: 2_000).run(required: true)
        let last = rollout.last(rollout.ssvc)
        #expect(last != nil && last! <= rollout.period, "\(String(describing: last))")
    }

    @Test("with hourly checks, Sparkle's groups offer a seventh of the fleet within an hour; the continuous rollout does not")
    func againstSparkle() {
        let rollout = PhasedFleetSimulation(machines: 3_500, schedule: .hourly).run()
        #expect(rollout.peakPerHour(rollout.sparkle) >= 350, "\(rollout.peakPerHour(rollout.sparkle))")
        #expect(rollout.peakPerHour(rollout.ssvc) <= 60, "\(rollout.peakPerHour(rollout.ssvc))")
    }
}
