import ArgumentParser
import SSVCCore

/// Benchmarks that print figures (never timed tests): the daemon's
/// footprint, wake-ups, start-up, control latency and check cost, and the
/// load a fleet puts on a version server.
@main
struct SSVCBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssvc-bench",
        abstract: "Print ssvc's benchmark figures.",
        subcommands: [Daemon.self, Fleet.self, Soak.self, Archive.self]
    )
}

/// SPEC §11's figures for a built `ssvcd`.
struct Daemon: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure a built ssvcd: memory, wake-ups, page faults, READY time, GetStatus, CPU per check, memory around an OSV export.")

    @Option(help: "The ssvcd to measure (a release build).") var ssvcd = ".build/release/ssvcd"
    @Option(help: "Seconds to count wake-ups while idle.") var idleSeconds = 60
    @Option(help: "Checks for the CPU-per-check figure.") var checks = 1_000
    @Option(help: "Apps for the RSS figures (repeat for several).") var apps: [Int] = [1, 10, 1_000]
    @Option(help: "Only these figures (repeatable): footprint, burst, ready, offers, control, hostile, holds, state, check, advisories, documents.") var only: [String] = []
    @Option(help: "For advisories: an OSV export zip to read (Tests/Fixtures/osv_export.py 200 FILE --package requests makes one).")
    var export: String?
    @Option(help: "For advisories: the ecosystem asked about.") var ecosystem = "PyPI"
    @Option(help: "For advisories: the package asked about, at version 1.0.") var package = "requests"

    private func wanted(_ name: String) -> Bool { only.isEmpty || only.contains(name) }

    func validate() throws {
        if only.contains("advisories"), export == nil { throw ValidationError("--only advisories needs --export: an OSV export zip") }
        for (option, value) in [("--ecosystem", ecosystem), ("--package", package)]
        where value.isEmpty || value.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
            throw ValidationError("\(option): a name without quotes, backslashes or control characters")
        }
    }

    func run() throws {
        let server = try LoopbackServer(body: DaemonFigures.response)
        defer { server.shutdown() }
        let figures = DaemonFigures(ssvcd: ssvcd, server: server, idleSeconds: idleSeconds)
        do {
            if wanted("footprint") { for count in apps { try figures.footprint(apps: count) } }
            if wanted("burst") { try figures.burst() }
            if wanted("ready") { try figures.readiness() }
            if wanted("offers") { try figures.readinessWithPendingOffers() }
            if wanted("control") { try figures.control() }
            if wanted("hostile") { try figures.neverReadingClients() }
            if wanted("holds") { try figures.holdStorm() }
            if wanted("state") { try figures.worstStateFile() }
            if wanted("check") { try figures.checkCost(checks: checks) }
            if wanted("documents") { try figures.worstDocuments() }
            if wanted("advisories") {
                if let export {
                    try figures.advisories(export: export, ecosystem: ecosystem, package: package)
                    try figures.sharedMirror(export: export, ecosystem: ecosystem)
                } else {
                    print("memory around reading an OSV export: not measured (--export FILE; Tests/Fixtures/osv_export.py makes one)")
                }
            }
        } catch {
            throw ValidationError("ssvc-bench: \(error.description)")
        }
    }
}

/// The load a version server sees when a whole fleet starts at once, overdue,
/// scheduled by the real planner, beside "check at once when overdue".
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Simulate a fleet starting at once and print the server's peak load.")

    @Option(help: "Machines, each with its own machine id.") var machines = 10_000
    @Option(help: "Hours simulated.") var hours = 24
    @Flag(help: "Instead: a release phased over --window-days, offered fraction every 6 hours, a required update, and the rollout paused and resumed.")
    var phased = false
    @Option(help: "The phased run's rollout window, in days.") var windowDays = 7
    @Option(help: "The phased run's schedule: hourly, daily, weekly.") var schedule: Schedule = .daily

    func run() {
        if phased { return runPhased() }
        for (label, age) in [("overdue (last check 3 days ago)", Optional(3 * 86_400.0)), ("never checked", nil)] {
            let fleet = FleetSimulation(machines: machines, lastCheckAge: age, duration: Double(hours) * 3_600)
            let planned = fleet.withPlanner()
            let naive = fleet.checkingAtOnce()
            let method = "real SchedulePlanner, daily, default windows, \(machines) machine ids, \(hours) h"
            print("fleet, \(label): ssvcd peak \(planned.peakPerSecond)/s, \(planned.peakPerMinute)/min, \(planned.requests) requests; "
                + "check-at-once peak \(naive.peakPerSecond)/s, \(naive.peakPerMinute)/min [\(Machine.summary); \(method)]")
        }
    }
}

