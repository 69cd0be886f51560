@preconcurrency import Glibc
import Dispatch
import FoundationEssentials
import Logging
import ServiceLifecycle
import SSVCControl
import SSVCCore
import SSVCPosix
import SSVCSigning
import SSVCSystemd

/// Runs every app's checks on Dispatch timers (wall time, so time asleep
/// counts), keeps the state file, and reports each result to the journal.
public actor CheckService: Service {
    private var configuration: Configuration { didSet { statusCache.invalidate() } }
    private let overrides: ConfigurationLoader.Overrides
    private let environment: [String: String]
    private var state: DaemonState { didSet { statusCache.invalidate() } }
    /// Nil when the state file belongs to a newer ssvc: the state then
    /// lives in memory only, and the file is left as it is.
    private let store: StateStore?
    /// Why the state file cannot be written now; said once, and once more
    /// when it can again. While set, a timer tries again.
    private var stateProblem: String?
    private var saveRetry: DispatchSourceTimer?
    /// When a state or metrics file that could not be written is tried
    /// again: after 15 s, then twice as long each time, at most 15 min.
    static let writeRetrySeconds: ClosedRange<Double> = 15...900
    private var writeRetryDelay = writeRetrySeconds.lowerBound
    private var fetcher: Fetcher
    private let logger: Logger
    private let journal: CheckJournal
    private let machineID: String
    /// The machine id as ssvc alone sees it (`AppSpecificID`): phased
    /// offers hash this one.
    private let appSpecificID: String
    private let machine: MachineFacts
    /// Told when work ends, to give memory back once the daemon is quiet.
    private let idleMemory: IdleMemoryReleaser?

    private var plans: [String: NextCheck] = [:] { didSet { statusCache.invalidate() } }
    /// `GetStatus` replies, answered without entering the actor.
    public nonisolated let statusCache = StatusCache()
    /// The control group and idle limit in force, updated at each reload.
    public nonisolated let controlSettings: ControlSettings
    /// Checks running now, and those waiting for one of the slots.
    private var runningChecks = 0
    private var waitingChecks: [CheckedContinuation<Void, Never>] = []
    /// At most this many checks fetch at once: a thousand apps due together
    /// neither open a thousand connections nor hold a thousand responses.
    static let concurrentChecks = 8
    private var timers: [String: DispatchSourceTimer] = [:]
    /// Bumped each time an app's timer is replaced, so a stale firing is ignored.
    private var generations: [String: Int] = [:]
    private var inFlight: [String: Task<Void, Never>] = [:]
    /// HTTP clients a reload replaced, each shut down once the checks that
    /// may still use it have ended.
    private var retiring: [Int: Task<Void, Never>] = [:]
    private var nextRetiring = 0
    private var stopping = false
    private var watchers: [Int: (app: String?, continuation: AsyncStream<ControlEvent>.Continuation)] = [:]
    private var nextWatcher = 0
    private let timerQueue = DispatchQueue(label: "io.ssvc.timers")
    /// `hooks-dir`'s runner; nil without one.
    private var hooks: HookRunner?
    /// The metrics file no longer says what the state says.
    private var metricsDirty = true
    /// The last reason the metrics file could not be written, said once.
    private var metricsProblem: String?

    public init(
        configuration: Configuration, overrides: ConfigurationLoader.Overrides, environment: [String: String],
        state: DaemonState, store: StateStore?, logger: Logger, machineID: String, machine: MachineFacts,
        idleMemory: IdleMemoryReleaser? = nil
    ) {
        self.configuration = configuration
        controlSettings = ControlSettings(configuration.daemon)
        self.overrides = overrides
        self.environment = environment
        // The configuration is the truth: apps removed from it leave the state too.
        var state = state
        let names = Set(configuration.apps.map(\.name))
        state.apps = state.apps.filter { names.contains($0.key) }
        self.state = state
        self.store = store
        self.fetcher = Fetcher(settings: configuration.daemon, environment: environment)
        self.logger = logger
        journal = CheckJournal(logger: logger)
        self.machineID = machineID
        appSpecificID = AppSpecificID.derive(machineID: machineID)
        self.machine = machine
        self.idleMemory = idleMemory
        hooks = configuration.daemon.hooksDirectory.map { HookRunner(directory: $0, environment: environment, logger: logger) }
    }

    public func run() async throws {
        for app in configuration.apps { arm(app.name, atStart: true) }
        settleOffers()
        writeMetrics()
        ServiceNotifier.shared.notify("READY=1\nSTATUS=\(summary())")
        logger.info("started with \(configuration.apps.count) apps", metadata: ["SSVC_STATE_DIR": "\(configuration.daemon.stateDirectory)"])
        idleMemory?.noteActivity()
        do {
            try await gracefulShutdown()
        } catch {}
        await stop()
    }

    /// Releases what `init` made, for a service that will never run (the
    /// socket could not be had): the HTTP client must be shut down.
    public func discard() async {
        await fetcher.shutdown()
    }

    /// Stops the timers, abandons fetches in flight, and writes the state.
    private func stop() async {
        stopping = true
        ServiceNotifier.shared.notify("STOPPING=1")
        for watcher in watchers.values { watcher.continuation.finish() }
        for timer in timers.values { timer.cancel() }
        timers = [:]
        // Checks waiting for a slot get one as the cancelled ones end, see
        // `stopping` and end at once.
        for task in inFlight.values { task.cancel() }
        CommandRunner.killRunning()
        for task in inFlight.values { await task.value }
        for task in retiring.values { await task.value }
        save()
        // Figures of a stopped daemon would read as current: none is better.
        if let path = configuration.daemon.metricsFile { unlink(path) }
        await fetcher.shutdown()
        saveRetry?.cancel()
        saveRetry = nil
        writeTimer?.cancel()
        writeTimer = nil
        if let store, stateProblem == nil {
            logger.info("stopped; state written to \(store.path)")
        } else {
            logger.info("stopped; the state was not written")
        }
    }

    // MARK: Queries

    /// Every app, or the one named; nil when there is no such app.
    public func status(of name: String?) -> [AppStatus]? {
        let now = Date()
        let apps = configuration.apps.filter { name == nil || $0.name == name }
        if name != nil && apps.isEmpty { return nil }
        return apps.map { app in
            AppStatus(
                name: app.name, format: app.format, url: URLText.masked(app.url), schedule: app.schedule, proxy: app.proxyInUse(configuration.daemon),
                signature: app.signature, state: state.apps[app.name] ?? AppState(), next: plans[app.name] ?? NextCheck(at: nil, reason: .manualOnly), now: now
            )
        }
    }

    /// Checks every app, or the one named, and returns once the fetches are
    /// done. Within `min-interval-seconds` of an app's last fetch the stored
    /// result answers without a request. Nil when there is no such app.
    public func checkNow(_ name: String?) async -> [AppStatus]? {
        let names = configuration.apps.map(\.name).filter { name == nil || $0 == name }
        if name != nil && names.isEmpty { return nil }
        await withTaskGroup(of: Void.self) { group in
            for app in names { group.addTask { await self.runCheck(app, manual: true) } }
        }
        // The caller may read the files next.
        flushWrites()
        return status(of: name)
    }

    // MARK: Events

    /// A stream of events for one app or all; it ends when the daemon stops.
    /// A watcher that does not keep up loses the oldest events, never the
    /// daemon's time.
    public func watch(_ name: String?) -> AsyncStream<ControlEvent>? {
        if let name, app(named: name) == nil { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: ControlEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = nextWatcher
        nextWatcher += 1
        watchers[id] = (name, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unwatch(id) }
        }
        return stream
    }

    private func unwatch(_ id: Int) {
        watchers[id] = nil
    }

    private func publish(_ event: ControlEvent) {
        for watcher in watchers.values where watcher.app == nil || watcher.app == event.app?.name || event.kind == .reload {
            watcher.continuation.yield(event)
        }
    }

    // MARK: Reload

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
    public func reload() async throws(ConfigurationError) {
        await takeReloadTurn()
        defer { passReloadTurn() }
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
    }

    /// Reloads waiting for the one under way, in arrival order.
    private var reloadWaiters: [CheckedContinuation<Void, Never>] = []
    private var reloading = false

    private func takeReloadTurn() async {
        guard reloading else {
            reloading = true
            return
        }
        await withCheckedContinuation { reloadWaiters.append($0) }
    }

    private func passReloadTurn() {
        if reloadWaiters.isEmpty {
            reloading = false
        } else {
            reloadWaiters.removeFirst().resume()
        }
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
    private func apply(_ loaded: Configuration) {
        for warning in loaded.warnings { logger.warning("\(warning)") }
        var next = loaded
        next.daemon.stateDirectory = configuration.daemon.stateDirectory
        next.daemon.socketPath = configuration.daemon.socketPath
        if Self.fetchSettingsDiffer(configuration, next) {
            let (retired, holders, id) = (fetcher, Array(inFlight.values), nextRetiring)
            fetcher = Fetcher(settings: next.daemon, environment: environment)
            nextRetiring += 1
            retiring[id] = Task {
                for check in holders { await check.value }
                await retired.shutdown()
                self.retiring[id] = nil
            }
        }
        let names = Set(next.apps.map(\.name))
        for name in timers.keys where !names.contains(name) {
            timers.removeValue(forKey: name)?.cancel()
            plans[name] = nil
        }
        let pruned = state.apps.filter { names.contains($0.key) }
        let stateChanged = pruned.count != state.apps.count
        if stateChanged { state.apps = pruned }
        if next.daemon.hooksDirectory != configuration.daemon.hooksDirectory {
            hooks = next.daemon.hooksDirectory.map { HookRunner(directory: $0, environment: environment, logger: logger) }
        }
        if next.daemon.metricsFile != configuration.daemon.metricsFile, let old = configuration.daemon.metricsFile { unlink(old) }
        // Apps whose settings are as they were keep their plans and timers:
        // re-planning them would move a first check or a catch-up spread
        // from the start to now at every reload, and a fleet reloaded more
        // often than its first-check window would never check.
        let before = Dictionary(configuration.apps.map { ($0.name, $0) }) { first, _ in first }
        let policyChanged = next.daemon.policy != configuration.daemon.policy
        let settingsChanged = next.apps != configuration.apps || next.daemon != configuration.daemon
        configuration = next
        controlSettings.update(next.daemon)
        for app in next.apps where policyChanged || before[app.name] != app || plans[app.name] == nil {
            arm(app.name, atStart: true)
        }
        settleOffers()
        if stateChanged { save() }
        if settingsChanged { metricsDirty = true }
        writeMetrics()
        logger.info("configuration reloaded: \(next.apps.count) apps")
        publish(ControlEvent(kind: .reload, at: RFC3339.format(Date()), app: nil, message: nil))
        ServiceNotifier.shared.notify("STATUS=\(summary())")
        idleMemory?.noteActivity()
    }

    /// Whether the HTTP clients must be made anew: their trust roots,
    /// limits, proxies or client certificates changed.
    private static func fetchSettingsDiffer(_ a: Configuration, _ b: Configuration) -> Bool {
        let (x, y) = (a.daemon, b.daemon)
        return x.caFile != y.caFile || x.timeoutSeconds != y.timeoutSeconds || x.maxResponseBytes != y.maxResponseBytes
            || x.proxy != y.proxy || x.clientIdentity != y.clientIdentity
            || Set(a.apps.compactMap(\.clientIdentity)) != Set(b.apps.compactMap(\.clientIdentity))
    }

    // MARK: Timers

    private func app(named name: String) -> AppConfiguration? {
        configuration.apps.first { $0.name == name }
    }

    private func planner(for app: AppConfiguration) -> SchedulePlanner {
        SchedulePlanner(
            schedule: app.schedule, phase: SchedulePlanner.phase(machineID: machineID, app: app.name),
            policy: configuration.daemon.policy
        )
    }

    private func rollout(for app: AppConfiguration) -> PhasedRollout.Settings {
        PhasedRollout.Settings(
            app: app.name, window: app.phasedRolloutSeconds.map { TimeInterval($0) },
            pinnedPosition: configuration.daemon.rolloutPosition, machine: appSpecificID
        )
    }

    /// Plans the app's next check and sets its timer.
    private func arm(_ name: String, atStart: Bool) {
        guard !stopping, let app = app(named: name) else {
            timers.removeValue(forKey: name)?.cancel()
            return
        }
        plans[name] = planner(for: app).plan(
            now: Date(), history: state.apps[name]?.history ?? CheckHistory(), atStart: atStart, jitter: Double.random(in: 0..<1)
        )
        armTimer(name)
    }

    /// Sets the app's timer (replacing any other) for its next wake-up:
    /// the planned check or the pending offer, whichever comes first.
    private func armTimer(_ name: String) {
        timers.removeValue(forKey: name)?.cancel()
        guard !stopping, let plan = plans[name], let wake = Wake.next(check: plan, offer: state.apps[name]?.pending) else { return }
        let generation = (generations[name] ?? 0) + 1
        generations[name] = generation
        timers[name] = Self.makeTimer(queue: timerQueue, at: wake.at) { [weak self] in
            Task { await self?.timerFired(name, generation: generation) }
        }
    }

    /// Built outside the actor with a `@Sendable` handler: the handler runs on
    /// the timer queue and must not be isolated to anything.
    private nonisolated static func makeTimer(
        queue: DispatchQueue, at: Date, handler: @escaping @Sendable () -> Void
    ) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        // Within years 0…9999, so that no planned time, however far, traps.
        let seconds = max(CivilTime.clampedSeconds(at), 0)
        let whole = seconds.rounded(.down)
        let deadline = DispatchWallTime(timespec: timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9)))
        timer.schedule(wallDeadline: deadline, leeway: .milliseconds(500))
        timer.setEventHandler(handler: handler)
        timer.activate()
        return timer
    }

    /// Makes the offer whose time has come, then checks if the check is
    /// due too; otherwise only sets the timer again.
    private func timerFired(_ name: String, generation: Int) async {
        guard !stopping, generations[name] == generation else { return }
        timers.removeValue(forKey: name)?.cancel()
        let now = Date()
        makeOffer(name, now: now)
        // The timer's leeway may wake it a little before the check's time.
        if let at = plans[name]?.at, at <= now.addingTimeInterval(1) {
            await runCheck(name, manual: false)
        } else {
            armTimer(name)
        }
    }

    // MARK: Phased offers

    /// Makes `name`'s pending offer if its time has come: the status flips
    /// with no fetch, and is reported as a check's result is.
    private func makeOffer(_ name: String, now: Date) {
        guard let app = app(named: name), let before = state.apps[name], let offer = before.pending,
              let after = before.offering(at: now) else { return }
        state.apps[name] = after
        report(app, before: before, change: .offer(offer), at: now)
    }

    /// Settles every pending offer under the configuration in force (at
    /// start and after a reload: the window or the pin may have changed).
    /// An offer whose time has now come is made and reported.
    private func settleOffers() {
        let now = Date()
        for app in configuration.apps {
            guard let before = state.apps[app.name], let offer = before.pending else { continue }
            let after = before.resettled(rollout(for: app), now: now)
            guard after != before else { continue }
            state.apps[app.name] = after
            armTimer(app.name)
            if after.pending == nil {
                // Made now, or at its time if that passed while ssvcd was stopped.
                var made = offer
                made.offerAt = min(offer.offerAt, now)
                report(app, before: before, change: .offer(made), at: now)
            } else {
                // Through the batched writer: a reload that moves a thousand
                // offers writes the files once.
                stateDirty = true
                metricsDirty = true
                writeSoon()
            }
        }
    }

    // MARK: Checks

    /// One check at a time per app: a second request waits for the first.
    private func runCheck(_ name: String, manual: Bool) async {
        if let running = inFlight[name] {
            await running.value
            return
        }
        let task = Task {
            await self.acquireCheckSlot()
            await self.performCheck(name, manual: manual)
            self.releaseCheckSlot()
        }
        inFlight[name] = task
        await task.value
        inFlight[name] = nil
    }

    private func acquireCheckSlot() async {
        if runningChecks < Self.concurrentChecks {
            runningChecks += 1
        } else {
            await withCheckedContinuation { waitingChecks.append($0) }
        }
    }

    /// Hands the slot to a waiting check; when the last check of a burst
    /// ends, the burst's memory goes back to the system once all is quiet.
    private func releaseCheckSlot() {
        if waitingChecks.isEmpty {
            runningChecks -= 1
            if runningChecks == 0 { idleMemory?.noteActivity() }
        } else {
            waitingChecks.removeFirst().resume()
        }
    }

    private func performCheck(_ name: String, manual: Bool) async {
        guard !stopping, let app = app(named: name) else { return }
        let started = Date()
        let before = state.apps[name] ?? AppState()
        if manual, let lastFetch = before.lastFetch, lastFetch <= started,
           started.timeIntervalSince(lastFetch) < configuration.daemon.policy.minimumInterval {
            return
        }
        let attempt = CheckAttempt(
            app: app, settings: configuration.daemon, machine: machine, storedResponse: before.response,
            storedETag: before.etag, storedSignature: before.signature, newestSignatureTime: before.newestSignatureTime,
            messageRecords: before.messages
        )
        let result = await attempt.run(fetcher: fetcher, now: started)
        // A check cancelled by shutdown is not a failure of the server.
        guard !Task.isCancelled, self.app(named: name) != nil else { return }

        let after = (state.apps[name] ?? AppState()).recording(
            result.outcome, running: result.running, at: started, rollout: rollout(for: app)
        )
        var notices: [MessageNotice] = []
        if case let .success(evaluation, _, _, _, _) = result.outcome { notices = Self.coalesced(evaluation.messages) }
        state.apps[name] = after
        arm(name, atStart: false)
        report(app, before: before, change: .check(result.outcome, notices: notices), at: started)
    }

    // MARK: Reporting

    /// What changed an app's state.
    private enum Change {
        case check(CheckOutcome, notices: [MessageNotice])
        /// A phased offer's time came: the decision it held is now in force.
        case offer(PhasedOffer)
    }

    /// The one way a change leaves the daemon, whether a check or an
    /// offer made it: the state file, the journal, the hooks, Watch, the
    /// metrics file (at once, or when the burst of checks ends) and
    /// systemd's STATUS=. `before` is the state before the change; the
    /// state in force now is the app's.
    private func report(_ app: AppConfiguration, before: AppState, change: Change, at time: Date) {
        let after = state.apps[app.name] ?? AppState()
        stateDirty = true
        metricsDirty = true
        writeSoon()
        var notices: [MessageNotice] = []
        let kind: ControlEvent.Kind
        switch change {
        case let .check(outcome, checkNotices):
            notices = checkNotices
            kind = .check
            journal.check(app, state: after, outcome: outcome, next: plans[app.name])
            for notice in notices { journal.notice(app, notice) }
        case let .offer(offer):
            kind = .offer
            journal.offer(app, state: after, offer: offer, next: plans[app.name])
        }
        runHooks(app, before: before, after: after, notices: notices)
        if !watchers.isEmpty {
            let appStatus = status(of: app.name)?.first
            publish(ControlEvent(kind: kind, at: RFC3339.format(time), app: appStatus, message: nil))
            for notice in notices {
                publish(ControlEvent(kind: .notice, at: RFC3339.format(time), app: appStatus, message: notice.description))
            }
        }
        ServiceNotifier.shared.notify("STATUS=\(summary())")
    }

    /// Notices told one by one from one check; more are told as one.
    static let noticesOneByOne = 5

    /// `notices`, the first `noticesOneByOne` as they are and the rest as
    /// one notice that counts them: a flood of messages is one journal
    /// entry, one hook run and one event, not thousands.
    static func coalesced(_ notices: [MessageNotice]) -> [MessageNotice] {
        guard notices.count > noticesOneByOne else { return notices }
        let rest = notices.count - noticesOneByOne
        let summary = MessageNotice(
            key: "coalesced", description: UpdateDescription(message: "and \(rest) more messages from this check", title: "\(rest) more messages")
        )
        return Array(notices.prefix(noticesOneByOne)) + [summary]
    }

    /// Tells the hooks about a changed status and each notice shown.
    private func runHooks(_ app: AppConfiguration, before: AppState, after: AppState, notices: [MessageNotice]) {
        guard let hooks else { return }
        let (previous, status) = (before.decision?.status ?? .unknown, after.decision?.status ?? .unknown)
        func event(_ kind: HookRunner.Event.Kind, message: String? = nil) -> HookRunner.Event {
            HookRunner.Event(
                kind: kind, app: app.name, status: status, previousStatus: previous, currentVersion: after.currentVersion,
                latestVersion: after.decision?.latestVersion, url: URLText.masked(app.url), message: message
            )
        }
        if previous != status { hooks.run(event(.statusChanged)) }
        for notice in notices {
            let text = [notice.description.title, notice.description.message].compactMap { $0 }.joined(separator: ": ")
            hooks.run(event(.notice, message: text))
        }
    }


    /// Writes the metrics file when the state changed since the last time:
    /// at start, within `writeDelay` of a change, after a reload. Never on
    /// a timer of its own.
    private func writeMetrics() {
        guard metricsDirty, let path = configuration.daemon.metricsFile else { return }
        let now = Date()
        let apps = configuration.apps.map { app in
            let appState = state.apps[app.name] ?? AppState()
            return MetricsExposition.App(
                name: app.name, format: app.format.rawValue, schedule: app.schedule.rawValue, currentVersion: appState.currentVersion,
                latestVersion: appState.decision?.latestVersion, status: appState.decision?.status ?? .unknown,
                lastCheck: appState.lastCheck, lastSuccess: appState.lastSuccess, nextCheck: plans[app.name]?.at,
                pendingVersion: appState.pending?.version, offerAt: appState.pending?.offerAt,
                consecutiveFailures: appState.consecutiveFailures,
                stale: appState.isStale(now: now, schedule: app.schedule, signature: app.signature)
            )
        }
        do {
            try FileSystem.replace(path, with: MetricsExposition.render(apps), mode: 0o644, durable: false)
            metricsDirty = false
            if metricsProblem != nil { logger.info("metrics file \(path) written again") }
            metricsProblem = nil
            settleRetry()
        } catch {
            // Said once until it is written again, which a retry timer tries.
            if metricsProblem == nil {
                logger.warning("cannot write the metrics file: \(error)", metadata: ["SSVC_ERROR": "\(error)"])
            }
            metricsProblem = error.description
            armSaveRetry()
        }
    }

    /// Writes the state file. A write that fails (a full disk) is said
    /// once, not at every check; the state stays in memory and is written
    /// as soon as a retry every `writeRetrySeconds` succeeds, which is said too.
    /// The state changed since it was last written.
    private var stateDirty = false
    private var writeTimer: DispatchSourceTimer?
    /// After a change, the state and metrics files are written within this
    /// long, together with every change made meanwhile: each write encodes
    /// every app, and a thousand apps written after each check held the
    /// daemon's one thread most of the time (found by the soak). A `Check`
    /// call, a reload and a stop write at once.
    static let writeDelay = 1.0

    private func writeSoon() {
        guard writeTimer == nil, !stopping else { return }
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        timer.schedule(deadline: .now() + Self.writeDelay, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            Task { await self?.flushWrites() }
        }
        timer.activate()
        writeTimer = timer
    }

    /// Writes what changed: the state file, then the metrics file.
    private func flushWrites() {
        writeTimer?.cancel()
        writeTimer = nil
        guard !stopping else { return }
        if stateDirty { save() }
        writeMetrics()
    }

    private func save() {
        stateDirty = false
        guard let store else { return }
        do {
            try store.save(state)
            if stateProblem != nil { logger.notice("state written again to \(store.path)") }
            stateProblem = nil
            settleRetry()
        } catch {
            if stateProblem == nil {
                logger.error(
                    "cannot save the state, keeping it in memory and trying again from time to time: \(error)",
                    metadata: ["SSVC_ERROR": "\(error)"]
                )
            }
            stateProblem = error.description
            armSaveRetry()
        }
    }

    /// While the state or the metrics file cannot be written, tries again
    /// now and then: the only timer an otherwise idle daemon has then.
    private func armSaveRetry() {
        guard saveRetry == nil, !stopping else { return }
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        timer.schedule(deadline: .now() + writeRetryDelay, leeway: .seconds(1))
        timer.setEventHandler { [weak self] in
            Task { await self?.retryWrites() }
        }
        timer.activate()
        saveRetry = timer
        writeRetryDelay = min(writeRetryDelay * 2, Self.writeRetrySeconds.upperBound)
    }

    private func retryWrites() {
        saveRetry?.cancel()
        saveRetry = nil
        guard !stopping else { return }
        if stateProblem != nil { save() }
        if metricsProblem != nil {
            metricsDirty = true
            writeMetrics()
        }
        settleRetry()
    }

    /// Stops the retry timer once both files are written.
    private func settleRetry() {
        guard stateProblem == nil, metricsProblem == nil else {
            armSaveRetry()
            return
        }
        saveRetry?.cancel()
        saveRetry = nil
        writeRetryDelay = Self.writeRetrySeconds.lowerBound
    }

    /// One line for systemd's STATUS=: counts by status, and failures.
    private func summary() -> String {
        var counts: [UpdateStatus: Int] = [:]
        var failing = 0
        var phased = 0
        for app in configuration.apps {
            let appState = state.apps[app.name]
            counts[appState?.decision?.status ?? .unknown, default: 0] += 1
            if (appState?.consecutiveFailures ?? 0) > 0 { failing += 1 }
            if appState?.pending != nil { phased += 1 }
        }
        var parts = UpdateStatus.allCases.compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
        if phased > 0 { parts.append("\(phased) phased") }
        if failing > 0 { parts.append("\(failing) failing") }
        return "\(configuration.apps.count) apps" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}
