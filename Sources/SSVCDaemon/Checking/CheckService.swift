import Dispatch
import FoundationEssentials
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import SSVCControl
import SSVCCore
import SSVCPosix
import SSVCSigning
import SSVCSystemd

/// The coordinator of the checks: it plans each app's next check or offer
/// on the clock, runs the checks (at most `concurrentChecks` at once, one
/// at a time per app), applies reloads one at a time, and hands every
/// change to the parts that tell it: `StateWriter` (the state and metrics
/// files) and `Reporter` (the journal, hooks, Watch and STATUS=).
package actor CheckService: Service {
    /// What the service takes from the world: the time and timers, the
    /// randomness that spreads checks, where systemd's notifications go,
    /// the HTTP transport and how running versions are read. Tests give a
    /// `ManualClock`, a fixed jitter, a list, and servers and versions in
    /// memory.
    package struct Runtime: Sendable {
        package var clock: any DaemonClock
        /// A number in 0..<1 for each plan: first checks and retries spread.
        package var jitter: @Sendable () -> Double
        package var notify: @Sendable (String) -> Void
        /// The HTTP client for the daemon's settings, made anew when a
        /// reload changes them: a `Fetcher`, unless a test gives another.
        package var transport: @Sendable (DaemonSettings, [String: String]) -> any HTTPTransport
        /// The running version: `VersionReader`, unless a test gives another.
        package var readVersion: @Sendable (VersionSource, RunningCommands) async throws -> String

        package init(
            clock: any DaemonClock, jitter: @escaping @Sendable () -> Double, notify: @escaping @Sendable (String) -> Void,
            transport: @escaping @Sendable (DaemonSettings, [String: String]) -> any HTTPTransport = { Fetcher(settings: $0, environment: $1) },
            readVersion: @escaping @Sendable (VersionSource, RunningCommands) async throws -> String = { try await VersionReader.read($0, commands: $1) }
        ) {
            self.clock = clock
            self.jitter = jitter
            self.notify = notify
            self.transport = transport
            self.readVersion = readVersion
        }

        /// Dispatch wall time, randomness seeded from the system's,
        /// systemd's notify socket. The spread needs no more than a good
        /// statistical generator: `Double.random` asked the kernel
        /// (getrandom) for every plan, 1,000 times at a 1,000-app start.
        package static var live: Runtime {
            let generator = NIOLockedValueBox(SplitMix64(seed: UInt64.random(in: .min ... .max)))
            return Runtime(
                clock: WallClock(), jitter: { generator.withLockedValue { Double.random(in: 0..<1, using: &$0) } },
                notify: { ServiceNotifier.shared.notify($0) }
            )
        }
    }

    /// At most this many checks fetch at once: a thousand apps due together
    /// neither open a thousand connections nor hold a thousand responses.
    static let concurrentChecks = 8

    // MARK: Configuration
    var configuration: Configuration {
        didSet { appPositions = Self.positions(configuration) }
    }
    /// Each app's place in `configuration.apps`: a search of the array per
    /// lookup copied every app before the one named, and a start of 1,000
    /// apps spent 17 ms of its 91 in those copies (issue 55).
    private var appPositions: [String: Int]
    let overrides: ConfigurationLoader.Overrides
    let environment: [String: String]
    /// Reloads run one at a time, in the order they come.
    let reloads = Turnstile(capacity: 1)
    /// HTTP clients a reload replaced, each shut down once the checks that
    /// may still use it have ended.
    var retiring: [Int: Task<Void, Never>] = [:]
    var nextRetiring = 0
    var fetcher: any HTTPTransport

    // MARK: State
    var state: DaemonState
    lazy var writer = StateWriter(
        store: store, metricsPath: configuration.daemon.metricsFile, clock: runtime.clock, logger: logger,
        wake: { [weak self] event in await self?.writesDue(event) }
    )
    private let store: StateStore?

    // MARK: Timers
    let runtime: Runtime
    /// Each app's next check, and the timer for its next wake-up (the
    /// check or its pending offer, whichever comes first).
    var plans: [String: NextCheck] = [:]
    /// Each app's report as derived at its last change (or when it last
    /// stopped holding), and what was last told of it to the outputs.
    var reports: [String: AppReport] = [:]
    var told: [String: AppReport.Told] = [:]
    var tally = StatusTally()
    /// Reports derived since the start: once per change of an app, and once
    /// when one stops holding (the benchmark and the tests count them).
    private(set) var derivations = 0
    var timers: [String: ClockTimer] = [:]
    /// Bumped each time an app's timer is replaced, so a stale firing is ignored.
    var generations: [String: Int] = [:]
    /// The machine id gives each app its phase in the schedule; the id as
    /// ssvc alone sees it (`AppSpecificID`) gives its place in a rollout.
    let machineID: String
    let appSpecificID: String

    // MARK: Checks
    let checkSlots = Turnstile(capacity: CheckService.concurrentChecks)
    var inFlight: [String: Task<Void, Never>] = [:]
    let machine: MachineFacts
    let commands = RunningCommands()
    var stopping = false

    // MARK: Outputs
    let logger: Logger
    let reporter: Reporter
    /// `GetStatus` replies, answered without entering the actor.
    package nonisolated let statusCache = StatusCache()
    /// The control group and idle limit in force, updated at each reload.
    package nonisolated let controlSettings: ControlSettings
    /// Told when work ends, to give memory back once the daemon is quiet.
    let idleMemory: IdleMemoryReleaser?

    package init(
        configuration: Configuration, overrides: ConfigurationLoader.Overrides, environment: [String: String],
        state: DaemonState, store: StateStore?, logger: Logger, machineID: String, machine: MachineFacts,
        idleMemory: IdleMemoryReleaser? = nil, runtime: Runtime = .live
    ) {
        self.configuration = configuration
        appPositions = Self.positions(configuration)
        controlSettings = ControlSettings(configuration.daemon)
        self.overrides = overrides
        self.environment = environment
        // The configuration is the truth: apps removed from it leave the
        // state too, all but a hold.
        let (pruned, holdsKept, holdsDropped) = state.pruned(to: Set(configuration.apps.map(\.name)))
        self.state = pruned
        self.store = store
        fetcher = runtime.transport(configuration.daemon, environment)
        self.logger = logger
        reporter = Reporter(logger: logger, environment: environment, hooksDirectory: configuration.daemon.hooksDirectory, notify: runtime.notify)
        self.runtime = runtime
        self.machineID = machineID
        appSpecificID = AppSpecificID.derive(machineID: machineID)
        self.machine = machine
        self.idleMemory = idleMemory
        for name in holdsKept { Self.sayHoldKept(name, hold: pruned.apps[name]?.hold, logger: logger) }
        Self.sayHoldsDropped(holdsDropped, logger: logger)
    }

    /// An app left the configuration with a hold: the hold stays.
    /// The name and version as the state file has them, which may be
    /// anything its writer left: cut, so that the line stays short (a
    /// 1 MiB name held wrote 2 MiB lines).
    static func sayHoldKept(_ name: String, hold: Hold?, logger: Logger) {
        let (name, version) = (DisplayText.cut(name, bytes: 256), DisplayText.cut(hold?.version ?? "", bytes: 256))
        logger.notice(
            "\(name): no longer configured; its hold at \(version.isEmpty ? "?" : version) is kept for when it comes back",
            metadata: ["MESSAGE_ID": "\(MessageID.holdChanged.rawValue)", "SSVC_APP": "\(name)", "SSVC_HOLD": "\(version)"]
        )
    }

    /// Said once: the oldest holds of apps no longer configured, past the most kept.
    static func sayHoldsDropped(_ count: Int, logger: Logger) {
        guard count > 0 else { return }
        logger.warning(
            "\(count) holds of apps no longer configured dropped, the oldest first: at most \(DaemonState.maximumKeptHolds) are kept",
            metadata: ["MESSAGE_ID": "\(MessageID.holdChanged.rawValue)"]
        )
    }

    package func run() async throws {
        start()
        do {
            try await gracefulShutdown()
        } catch {}
        await stop()
    }

    /// Plans every app, settles the offers, writes the metrics and says READY=1.
    func start() {
        expectMirrorReads()
        // Sized once, as in `deriveReports`.
        plans.reserveCapacity(configuration.apps.count)
        timers.reserveCapacity(configuration.apps.count)
        generations.reserveCapacity(configuration.apps.count)
        for app in configuration.apps { arm(app.name, atStart: true) }
        deriveReports()
        settleOffers()
        writer.writeNow(writeSource)
        runtime.notify("READY=1\nSTATUS=\(summary())")
        logger.info("started with \(configuration.apps.count) apps", metadata: ["SSVC_STATE_DIR": "\(configuration.daemon.stateDirectory)"])
        idleMemory?.noteActivity()
    }

    /// Tells the advisory mirrors what the apps will ask them (issue 55).
    func expectMirrorReads() {
        let daemon = configuration.daemon
        MirrorShares.expect(daemon: daemon.stateDirectory, configuration.apps.compactMap { AdvisoryCheck.expected($0, daemon: daemon) })
    }

    /// Releases what `init` made, for a service that will never run (the
    /// socket could not be had): the HTTP client must be shut down.
    package func discard() async {
        await fetcher.shutdown()
    }

    /// Stops the timers, abandons fetches in flight, and writes the state.
    func stop() async {
        stopping = true
        runtime.notify("STOPPING=1")
        reporter.finishWatchers()
        for timer in timers.values { timer.cancel() }
        timers = [:]
        // Checks waiting for a slot get one as the cancelled ones end, see
        // `stopping` and end at once.
        for task in inFlight.values { task.cancel() }
        // Version commands run only inside checks; one a check spawns from
        // now on is killed as it starts. So are hooks.
        commands.stop()
        reporter.stopHooks()
        for task in inFlight.values { await task.value }
        for task in retiring.values { await task.value }
        // The mirrors' downloads are kept while the daemon runs, not after.
        await MirrorShares.close(daemon: configuration.daemon.stateDirectory)
        await withCheckedContinuation { writer.close(then: $0) }
        let written = writer.stop(writeSource)
        await fetcher.shutdown()
        if written, let store {
            logger.info("stopped; state written to \(store.path)")
        } else {
            logger.info("stopped; the state was not written")
        }
    }

    // MARK: Queries

    /// Every app, or the one named; nil when there is no such app.
    package func status(of name: String?) -> [AppStatus]? {
        let now = runtime.clock.now
        let apps = configuration.apps.filter { name == nil || $0.name == name }
        if name != nil && apps.isEmpty { return nil }
        return apps.map { report($0, now: now).appStatus }
    }

    /// Checks every app, or the one named, and returns once the fetches are
    /// done. Within `min-interval-seconds` of an app's last fetch the stored
    /// result answers without a request. Nil when there is no such app.
    package func checkNow(_ name: String?) async -> [AppStatus]? {
        let names = configuration.apps.map(\.name).filter { name == nil || $0 == name }
        if name != nil && names.isEmpty { return nil }
        await withTaskGroup(of: Void.self) { group in
            for app in names { group.addTask { await self.runCheck(app, manual: true) } }
        }
        // The caller may read the files next.
        await written()
        return status(of: name)
    }

    /// A stream of events for one app or all; it ends when the daemon stops.
    package func watch(_ name: String?) -> AsyncStream<ControlEvent>? {
        if let name, app(named: name) == nil { return nil }
        return reporter.watch(name) { [weak self] id in
            Task { await self?.unwatch(id) }
        }
    }

    private func unwatch(_ id: Int) {
        reporter.unwatch(id)
    }

    // MARK: Reporting

    func app(named name: String) -> AppConfiguration? {
        appPositions[name].map { configuration.apps[$0] }
    }

    private static func positions(_ configuration: Configuration) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(configuration.apps.count)
        for (index, app) in configuration.apps.enumerated() { positions[app.name] = index }
        return positions
    }

    /// The app as it stands, from which every output about it is derived:
    /// the report derived at its last change while that holds, else one
    /// derived now (and kept, and counted in STATUS=).
    func report(_ app: AppConfiguration, now: Date) -> AppReport {
        if let kept = reports[app.name], kept.holds(at: now) { return kept }
        let report = Self.derive(app, state: state.apps[app.name], plan: plans[app.name], now: now, daemon: configuration.daemon)
        reports[app.name] = report
        derivations += 1
        tally.set(app.name, report.tally)
        return report
    }

    private static func derive(
        _ app: AppConfiguration, state: AppState?, plan: NextCheck?, now: Date, daemon: DaemonSettings, restoring: Bool = false
    ) -> AppReport {
        AppReport(
            app: app, state: state ?? AppState(), next: plan ?? NextCheck(at: nil, reason: .manualOnly), now: now, daemon: daemon,
            restoring: restoring
        )
    }

    /// Derives every app's report anew, and with them STATUS= (at start
    /// and after a reload). An app not told of before is told from now on
    /// against what its state says was last told; one whose settings a
    /// reload changed, against what was told under the old ones.
    func deriveReports() {
        let now = runtime.clock.now
        // Each table sized once: grown an app at a time, a table of
        // 1,000 apps was rehashed about ten times (issue 55).
        reports = [:]
        reports.reserveCapacity(configuration.apps.count)
        statusCache.invalidate()
        tally = StatusTally()
        if !told.isEmpty {
            let names = Set(configuration.apps.map(\.name))
            told = told.filter { names.contains($0.key) }
        }
        told.reserveCapacity(configuration.apps.count)
        for app in configuration.apps {
            let report = report(app, now: now)
            guard told[app.name] == nil else { continue }
            // Restoring changes only what the inputs' verdicts say: an app
            // that uses none is told against the report just derived, not
            // a second one (issue 55).
            told[app.name] = report.verdicts.isEmpty ? report.told : Self.derive(
                app, state: state.apps[app.name], plan: plans[app.name], now: now, daemon: configuration.daemon, restoring: true
            ).told
        }
    }

    /// One line for systemd's STATUS=.
    func summary() -> String {
        tally.line
    }

    /// What `GetStatus` answers changed for the app: its state, plan or
    /// settings; its report is derived again when next asked for.
    func changed(_ name: String) {
        reports[name] = nil
        statusCache.invalidate()
    }

    /// The one path from a changed app to every output: the status cache,
    /// the files (within a second) and the reporter, which compares the
    /// report last told with the report now.
    func tell(_ app: AppConfiguration, change: Reporter.Change, at time: Date) {
        changed(app.name)
        writer.changed()
        let after = report(app, now: runtime.clock.now)
        let before = told[app.name] ?? after.told
        told[app.name] = after.told
        // Said once, across restarts too.
        if var appState = state.apps[app.name] {
            for input in AppInputs.all { input.remember(after, before: before, in: &appState) }
            state.apps[app.name] = appState
        }
        reporter.report(after, before: before, change: change, at: time, summary: summary())
    }

    var writeSource: StateWriter.Source {
        StateWriter.Source(
            state: { self.state },
            metrics: {
                let now = self.runtime.clock.now
                return self.configuration.apps.map { self.report($0, now: now).metrics }
            }
        )
    }

    private func writesDue(_ event: StateWriter.Event) {
        writer.due(event, writeSource)
    }

    /// Writes what changed now (and what `state` and `metrics` say
    /// changed), and returns when it is on disk.
    func written(state: Bool = false, metrics: Bool = false) async {
        await written(writer.writeNow(writeSource, state: state, metrics: metrics))
    }

    /// Returns once no write of the files runs (a test reads them next).
    package func writesSettled() async {
        await withCheckedContinuation { writer.whenIdle(then: $0) }
    }

    /// Returns when the write that carries `ticket` has ended.
    func written(_ ticket: StateWriter.Ticket) async {
        await withCheckedContinuation { writer.whenWritten(ticket, then: $0) }
    }
}
