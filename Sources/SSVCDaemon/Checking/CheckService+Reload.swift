import Dispatch
import FoundationEssentials
import SSVCCore

extension CheckService {
    /// Reads the configuration again. A bad one leaves the running one in
    /// force and is reported; state and socket paths change only on restart.
    ///
    /// Reloads run one at a time, whole, in the order they reach the actor
    /// (SIGHUP and `Reload` calls alike). The files are read and parsed off
    /// the actor, on a queue of their own, so status calls and checks go on
    /// meanwhile (a thousand apps take a good part of a second); what was
    /// loaded is then put in force without a suspension, so a status query
    /// never sees half of it. An HTTP client the new settings replace is shut
    /// down later, when the checks that hold it end.
    package func reload() async throws(ConfigurationError) {
        await reloads.enter()
        defer { reloads.leave() }
        let result = await Self.loadOffActor(overrides, environment: environment)
        guard !stopping else { return }
        let loaded: Configuration
        switch result {
        case let .success(configuration):
            loaded = configuration
        case let .failure(error):
            logger.configurationError(error, "; keeping the running configuration")
            throw error
        }
        apply(loaded)
        // Answered once the files say what is in force.
        await written()
    }

    /// Reloads under way and waiting their turn: never more than one under way.
    func reloadsUnderWay() -> (running: Int, waiting: Int) {
        (reloads.inside, reloads.waitingCount)
    }

    /// Loads the configuration on a serial queue of its own (not a global
    /// one, which would start libdispatch's once-a-second monitor).
    private nonisolated static func loadOffActor(
        _ overrides: ConfigurationLoader.Overrides, environment: [String: String]
    ) async -> Result<Configuration, ConfigurationError> {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "io.ssvc.reload").async {
                continuation.resume(returning: Result { () throws(ConfigurationError) in
                    try ConfigurationLoader.load(overrides, environment: environment)
                })
            }
        }
    }

    /// Puts a loaded configuration in force. Nothing in here suspends.
    func apply(_ loaded: Configuration) {
        for warning in loaded.warnings { logger.warning("\(warning)") }
        var next = loaded
        next.daemon.stateDirectory = configuration.daemon.stateDirectory
        next.daemon.socketPath = configuration.daemon.socketPath
        if Self.fetchSettingsDiffer(configuration, next) { replaceFetcher(next.daemon) }
        let names = Set(next.apps.map(\.name))
        for name in timers.keys where !names.contains(name) {
            timers.removeValue(forKey: name)?.cancel()
            plans[name] = nil
        }
        let (pruned, holdsKept, holdsDropped) = state.pruned(to: names)
        let stateChanged = pruned != state
        if stateChanged { state = pruned }
        for name in holdsKept { Self.sayHoldKept(name, hold: pruned.apps[name]?.hold, logger: logger) }
        Self.sayHoldsDropped(holdsDropped, logger: logger)
        if next.daemon.hooksDirectory != configuration.daemon.hooksDirectory { reporter.setHooks(next.daemon.hooksDirectory) }
        writer.moveMetrics(to: next.daemon.metricsFile)
        // Apps whose settings are as they were keep their plans and timers:
        // re-planning them would move a first check or a catch-up spread
        // from the start to now at every reload, and a fleet reloaded more
        // often than its first-check window would never check.
        let before = Dictionary(configuration.apps.map { ($0.name, $0) }) { first, _ in first }
        let policyChanged = next.daemon.policy != configuration.daemon.policy
        let settingsChanged = next.apps != configuration.apps || next.daemon != configuration.daemon
        configuration = next
        expectMirrorReads()
        // Mirrors no app reads any more: their downloads go.
        let mirrors = next.apps.compactMap { app in
            app.advisories.flatMap { $0.sourceKind == .api ? nil : Advisories.mirrorKey(app, settings: $0, daemon: next.daemon) }
        }
        let folder = next.daemon.stateDirectory
        Task { @Sendable [folder, mirrors] in await MirrorShares.keep(daemon: folder, mirrors) }
        controlSettings.update(next.daemon)
        for app in next.apps where policyChanged || before[app.name] != app || plans[app.name] == nil {
            arm(app.name, atStart: true)
        }
        deriveReports()
        settleOffers()
        writer.writeNow(writeSource, state: stateChanged, metrics: settingsChanged)
        reporter.reloaded(apps: next.apps.count, at: runtime.clock.now, summary: summary())
        idleMemory?.noteActivity()
    }

    /// A new HTTP client for the new settings; the old one is shut down
    /// once the checks that may hold it have ended.
    private func replaceFetcher(_ settings: DaemonSettings) {
        let (retired, holders, id) = (fetcher, Array(inFlight.values), nextRetiring)
        fetcher = runtime.transport(settings, environment)
        nextRetiring += 1
        retiring[id] = Task {
            for check in holders { await check.value }
            await retired.shutdown()
            self.retiring[id] = nil
        }
    }

    /// Whether the HTTP clients must be made anew: their trust roots,
    /// limits, proxies or client certificates changed.
    private static func fetchSettingsDiffer(_ a: Configuration, _ b: Configuration) -> Bool {
        let (x, y) = (a.daemon, b.daemon)
        return x.caFile != y.caFile || x.timeoutSeconds != y.timeoutSeconds || x.maxResponseBytes != y.maxResponseBytes
            || x.proxy != y.proxy || x.clientIdentity != y.clientIdentity
            || Set(a.apps.compactMap(\.clientIdentity)) != Set(b.apps.compactMap(\.clientIdentity))
    }
}
