@testable import ssvc_bench
import FoundationEssentials
import SSVCCore
import SSVCTestSupport
import Testing

@Suite("phased fleet")
struct PhasedFleetSimulationTests {
    @Test("10,000 machines follow the straight line within 2 points once each has checked, and all are offered by T + W")
    func followsTheLine() async {
        let rollout = await offPool { PhasedFleetSimulation(machines: 10_000).run() }
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
    func requiredAtOnce() async {
        let rollout = await offPool { PhasedFleetSimulation(machines: 2_000).run(required: true) }
        let last = rollout.last(rollout.ssvc)
        #expect(last != nil && last! <= rollout.period, "\(String(describing: last))")
    }

    @Test("with hourly checks, Sparkle's groups offer a seventh of the fleet within an hour; the continuous rollout does not")
    func againstSparkle() async {
        let rollout = await offPool { PhasedFleetSimulation(machines: 3_500, schedule: .hourly).run() }
        #expect(rollout.peakPerHour(rollout.sparkle) >= 350, "\(rollout.peakPerHour(rollout.sparkle))")
        #expect(rollout.peakPerHour(rollout.ssvc) <= 60, "\(rollout.peakPerHour(rollout.ssvc))")
    }

    @Test("paused from T + 2 d to T + 4 d: no offer from one period after the pause to the resume, then on the line again, none withdrawn")
    func pauseAndResume() async {
        let (pause, resume) = (2 * 86_400.0, 4 * 86_400.0)
        let rollout = await offPool { PhasedFleetSimulation(machines: 2_000, caps: PhasedFleetSimulation.paused(from: pause, until: resume)).run() }
        // Until its next check a machine has not seen the pause, and an
        // offer timer set before it may still fire; one period on, every
        // machine has fetched the paused document.
        #expect(rollout.offered(rollout.ssvc, in: pause..<pause + rollout.period) > 0)
        #expect(rollout.offered(rollout.ssvc, in: pause + rollout.period..<resume) == 0)
        // Machines whose time came while everyone knew of the pause are
        // offered at their next check after the resume.
        let waited = zip(rollout.ssvc, rollout.due).filter { $1 >= pause + rollout.period && $1 < resume }
        #expect(!waited.isEmpty)
        let notAtResume = waited.filter { offered, _ in offered.map { $0 < resume || $0 > resume + rollout.period } ?? true }
        #expect(notAtResume.isEmpty, "\(notAtResume.count) machines, the first (offered, due): \(notAtResume.prefix(3))")
        var time = resume
        while time < rollout.window {
            let (now, later) = (rollout.fraction(rollout.ssvc, by: time), rollout.fraction(rollout.ssvc, by: time + 21_600))
            #expect(later > now, "T + \(time / 3_600) h: \(now), 6 h later: \(later)")
            time += 21_600
        }
        let gap = rollout.largestGap(rollout.ssvc, from: resume + rollout.period)
        #expect(gap < 0.02, "\(gap)")
        let last = rollout.last(rollout.ssvc)
        #expect(last != nil && last! <= rollout.window + rollout.period, "\(String(describing: last))")
        #expect(rollout.withdrawn == 0)
    }

    @Test("a cap of 30 from T offers exactly the machines below it until it is removed")
    func stopsAtTheCap() async {
        let resume = 4 * 86_400.0
        let caps = [PhasedFleetSimulation.CapChange(from: 0, percentage: 30), .init(from: resume, percentage: nil)]
        let rollout = await offPool { PhasedFleetSimulation(machines: 2_000, caps: caps).run() }
        let below = rollout.due.count { $0 < 0.3 * rollout.window }
        #expect(rollout.offered(rollout.ssvc, in: 0..<resume) == below)
        let above = zip(rollout.ssvc, rollout.due).filter { offered, due in offered.map { $0 < resume } == true && due >= 0.3 * rollout.window }
        #expect(above.isEmpty, "\(above.count) machines above the cap, the first (offered, due): \(above.prefix(3))")
        #expect(rollout.last(rollout.ssvc) != nil)
        #expect(rollout.withdrawn == 0)
    }
}
