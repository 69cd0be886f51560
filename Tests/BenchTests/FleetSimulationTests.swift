@testable import ssvc_bench
import FoundationEssentials
import SSVCCore
import SSVCTestSupport
import Testing

@Suite("fleet load")
struct FleetSimulationTests {
    @Test("10,000 overdue machines starting together spread their catch-ups over the window")
    func catchUpSpreads() async {
        let fleet = FleetSimulation(machines: 10_000)
        let planned = await offPool { fleet.withPlanner() }
        let naive = fleet.checkingAtOnce()
        #expect(naive.peakPerSecond == 10_000)
        // Evenly over the 3,600 s catch-up window: about 2.8 a second, 167 a minute.
        #expect(planned.peakPerSecond <= 12, "\(planned)")
        #expect(planned.peakPerMinute <= 215, "\(planned)")
        // Every machine checks on the first day: its catch-up, then once a day on its phase.
        #expect(planned.requests >= 10_000 && planned.requests <= 20_000, "\(planned)")
    }

    @Test("never-checked machines spread their first checks over the first-check window")
    func firstChecksSpread() async {
        let fleet = FleetSimulation(machines: 5_000, lastCheckAge: nil)
        let planned = await offPool { fleet.withPlanner() }
        #expect(fleet.checkingAtOnce().peakPerSecond == 5_000)
        // Evenly over the 600 s first-check window: about 8 a second.
        #expect(planned.peakPerSecond <= 22, "\(planned)")
        #expect(planned.requests >= 5_000)
    }
}
