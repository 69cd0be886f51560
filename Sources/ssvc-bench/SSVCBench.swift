import ArgumentParser
import SSVCCore

/// Benchmarks that print figures (never timed tests). For now the fleet
/// simulation; the daemon's footprint and latency figures follow (issue 7).
@main
struct SSVCBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssvc-bench",
        abstract: "Print ssvc's benchmark figures.",
        subcommands: [Fleet.self],
        defaultSubcommand: Fleet.self
    )
}

/// The load a version server sees when a whole fleet starts at once, overdue,
/// scheduled by the real planner, beside "check at once when overdue".
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Simulate a fleet starting at once and print the server's peak load.")

    @Option(help: "Machines, each with its own machine id.") var machines = 10_000
    @Option(help: "Hours simulated.") var hours = 24

    func run() {
        for (label, age) in [("overdue (last check 3 days ago)", Optional(3 * 86_400.0)), ("never checked", nil)] {
            let fleet = FleetSimulation(machines: machines, lastCheckAge: age, duration: Double(hours) * 3_600)
            let planned = fleet.withPlanner()
            let naive = fleet.checkingAtOnce()
            let method = "real SchedulePlanner, daily, default windows, \(machines) machine ids, \(hours) h"
            print("fleet, \(label): ssvcd peak \(planned.peakPerSecond)/s, \(planned.peakPerMinute)/min, \(planned.requests) requests; "
                + "check-at-once peak \(naive.peakPerSecond)/s, \(naive.peakPerMinute)/min [\(method)]")
        }
    }
}
