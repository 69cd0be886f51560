@preconcurrency import Glibc
import Dispatch
import FoundationEssentials
import Logging
import NIOCore
import ServiceLifecycle
import SSVCCore
import SSVCPosix
import SSVCSystemd

/// `ssvcd`'s life: configuration, state, services, signals.
package enum DaemonMain {
    /// sysexits(3)'s EX_CONFIG: the configuration is unusable.
    package static let configurationErrorExit: Int32 = 78

    /// Runs the daemon until SIGTERM or SIGINT, then exits with its status.
    /// Everything in Swift concurrency runs on the main queue
    /// (`MainQueueExecutor`), so that an idle daemon is never woken.
    package static func start(overrides: ConfigurationLoader.Overrides, logTarget: LogTarget) -> Never {
        ProcessLimits.openStandardStreams()
        ProcessLimits.resetInheritedSignals()
        let descriptors: Int
        do {
            descriptors = try checkLimits()
        } catch {
            StandardError.writeLine("ssvcd: \(error.description)")
            exit(1)
        }
        IdleMemoryReleaser.limitArenas(environment: ProcessEnvironment.variables())
        MainQueueExecutor.install()
        Task {
            let status = await run(overrides: overrides, logTarget: logTarget, descriptors: descriptors)
            // The last entries ("stopped; state written") may wait for a
            // busy journald or a slow reader of standard error: up to 3 s,
            // as for STOPPING=1, both together.
            let deadline = ContinuousClock.now + .seconds(3)
            await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
                JournalSender.shared.afterSent(within: 3) { sent.resume() }
            }
            let left = max(0, (deadline - ContinuousClock.now) / .seconds(1))
            await withCheckedContinuation { (written: CheckedContinuation<Void, Never>) in
                StandardErrorLines.shared.afterWritten(within: left) { written.resume() }
            }
            exit(status)
        }
        dispatchMain()
    }

    /// The fewest more tasks (threads and processes) ssvcd starts with:
    /// its own threads, a version command, a hook and the TOML child.
    package static let minimumTasks = 16

    struct LimitTooLow: Error, CustomStringConvertible {
        let description: String
    }

    /// Raises the soft limit on open files to the hard one, as systemd
    /// does for its own services, and refuses to start below
    /// `ConnectionLimiter.minimumDescriptors` open files or
    /// `minimumTasks` tasks, naming the limit: under them the daemon would
    /// trap inside libdispatch, spin on accept or hang without a word.
    /// Returns the soft limit on open files.
    static func checkLimits() throws(LimitTooLow) -> Int {
        let descriptors = ConnectionLimiter.raiseDescriptorLimit()
        guard descriptors >= ConnectionLimiter.minimumDescriptors else {
            throw LimitTooLow(description: "needs at least \(ConnectionLimiter.minimumDescriptors) open files, but RLIMIT_NOFILE (systemd: LimitNOFILE=) allows \(descriptors)")
        }
        if let tasks = ProcessLimits.tasksLeft(), tasks.count < minimumTasks {
            throw LimitTooLow(description: "needs at least \(minimumTasks) more tasks (threads and processes), but \(tasks.limit)")
        }
        return descriptors
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    static func run(overrides: ConfigurationLoader.Overrides, logTarget: LogTarget, descriptors: Int) async -> Int32 {
        // A SIGHUP before the reload handler is in place (below, after the
        // socket is bound) must not end the daemon, as its default action
        // would: the configuration read at start is the newer one then.
        signal(SIGHUP, SIG_IGN)
        // One event-loop thread serves the socket and the fetches: NIO's
        // default, a thread per core, would give a 64-core host 64 threads.
        NIOSingletons.groupLoopCountSuggestion = 1
        NIOSingletons.blockingPoolThreadCountSuggestion = 1
        LoggingSystem.bootstrap { _ in JournalLogHandler(identifier: "ssvcd", target: logTarget) }
        let logger = Logger(label: "ssvcd")
        let environment = ProcessEnvironment.variables()

        let configuration: Configuration
        do {
            configuration = try ConfigurationLoader.load(overrides, environment: environment)
        } catch {
            logger.configurationError(error)
            if echoesToStandardError(logTarget) { StandardErrorLines.shared.writeEscaped("ssvcd: \(error.description)") }
            return configurationErrorExit
        }

        for warning in configuration.warnings { logger.warning("\(warning)") }
        let store = StateStore(directory: configuration.daemon.stateDirectory)
        do {
            try store.lock()
        } catch {
            logger.critical("\(error)", metadata: ["SSVC_ERROR": "\(error)"])
            if echoesToStandardError(logTarget) { StandardErrorLines.shared.writeEscaped("ssvcd: \(error)") }
            return 1
        }
        let runtime = CheckService.Runtime.live
        let idleMemory = IdleMemoryReleaser()
        let service: CheckService
        // The state as read lives only in this scope: kept to the end of
        // `run`, all of it (every record of a 64 MiB file, 386 MiB) stayed
        // for the daemon's life beside the pruned state in force (issue 52).
        do {
            let loaded: StateStore.Loaded
            do {
                // Read held to what a write keeps, record by record (issue 52).
                let bounds = DaemonState.ReadBounds(responseBytes: configuration.daemon.maxResponseBytes, configured: Set(configuration.apps.map(\.name)))
                loaded = try store.load(now: runtime.clock.now, bounds: bounds)
            } catch {
                logger.critical("cannot use the state directory: \(error)", metadata: ["SSVC_ERROR": "\(error)"])
                if echoesToStandardError(logTarget) { StandardErrorLines.shared.writeEscaped("ssvcd: cannot use the state directory: \(error)") }
                return 73  // EX_CANTCREAT
            }
            if let schema = loaded.newerSchema {
                logger.error(
                    "\(store.path) was written by a newer ssvc (schema \(schema); this one reads \(DaemonState.currentSchema)): kept as it is and not written; running on a fresh state in memory",
                    metadata: ["MESSAGE_ID": "\(MessageID.stateRecovered.rawValue)", "SSVC_ERROR": "state schema \(schema) is newer than \(DaemonState.currentSchema)"]
                )
            }
            for repair in loaded.repairs {
                logger.warning("\(repair)", metadata: ["MESSAGE_ID": "\(MessageID.stateRecovered.rawValue)", "SSVC_ERROR": "\(repair)"])
            }
            if loaded.holdsReplayed > 0 {
                let holds = loaded.holdsReplayed == 1 ? "1 hold" : "\(loaded.holdsReplayed) holds"
                logger.notice("\(holds) set or lifted since the state was last written: read from \(store.directory)/holds.jsonl and written into \(store.path)")
            }
            for name in loaded.holdsKept { CheckService.sayHoldKept(name, hold: loaded.state.apps[name]?.hold, logger: logger) }
            CheckService.sayHoldsDropped(loaded.holdsDropped, logger: logger)
            if let recovery = loaded.recovery {
                logger.warning("state file unusable (\(recovery.reason)); moved to \(recovery.movedTo), starting fresh", metadata: [
                    "MESSAGE_ID": "\(MessageID.stateRecovered.rawValue)", "SSVC_ERROR": "\(recovery.reason)",
                ])
            }

            service = CheckService(
                configuration: configuration, overrides: overrides, environment: environment, state: loaded.state,
                store: loaded.newerSchema == nil ? store : nil, logger: logger, machineID: machineID(), machine: MachineFactsReader.gather(), idleMemory: idleMemory,
                runtime: runtime
            )
        }
        let server: ControlServer
        do {
            server = try await ControlServer.start(
                path: configuration.daemon.socketPath, passedSocket: SocketActivation.passedSocket(),
                dispatcher: ControlDispatcher(service: service),
                logger: logger, idleMemory: idleMemory, limiter: ConnectionLimiter(descriptors: descriptors)
            )
        } catch {
            logger.critical("\(error.description)", metadata: ["SSVC_ERROR": "\(error.description)"])
            if echoesToStandardError(logTarget) { StandardErrorLines.shared.writeEscaped("ssvcd: \(error.description)") }
            await service.discard()
            return 1
        }
        // Started in this order and stopped in the reverse: the socket is
        // bound before the checks start (and READY=1 is sent).
        // Each named here: ServiceGroup names a service by `"\(service)"`
        // otherwise, and the first such print searched every protocol
        // conformance in the binary, then Foundation's types by name: a
        // millisecond of a 16 ms start (issue 55).
        var services = [
            ServiceGroupConfiguration.ServiceConfiguration(service: server, serviceName: "control socket"),
            ServiceGroupConfiguration.ServiceConfiguration(service: service, serviceName: "checks"),
        ]
        if let interval = ServiceNotifier.watchdogPingInterval() {
            services.append(.init(service: WatchdogService(interval: interval), serviceName: "watchdog"))
        }
        let reloadSignal = onSignal(SIGHUP) {
            Task { try? await service.reload() }
        }
        defer { reloadSignal.cancel() }

        var groupLogger = logger
        groupLogger.logLevel = .warning
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: groupLogger))
        do {
            try await group.run()
        } catch {
            logger.critical("stopped: \(error)")
            await notificationsTried()
            return 1
        }
        // STOPPING=1 waits on the notifier's queue, and on the manager's
        // when that is full; exiting at once lost it (DaemonLifecycleTests
        // beside other tests, issue 49).
        await notificationsTried()
        return 0
    }

    /// Returns once every notification handed over so far is sent, or
    /// after 3 s of a manager that does not read.
    private static func notificationsTried() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            ServiceNotifier.shared.afterSent(within: 3) { done.resume() }
        }
    }

    /// Whether a fatal start error, already in the journal, is also written
    /// to standard error for whoever started ssvcd by hand: not when the
    /// journal is standard error (under systemd), not when standard
    /// error is where every entry goes anyway, and not when no journal
    /// listens (`--log-target journal` without one): the entry went to
    /// standard error then, and the error was written twice.
    static func echoesToStandardError(_ target: LogTarget) -> Bool {
        target.usesJournal && Journal.isReachable && !Journal.isStandardErrorJournalStream
    }

    /// Where signal handlers run: a serial queue of its own, as a global
    /// queue would start libdispatch's once-a-second worker-pool monitor.
    private static let signalQueue = DispatchQueue(label: "io.ssvc.signals")

    /// A signal source for `number` whose handler runs on `signalQueue`.
    /// Made here, not in an executable's `main`, so that the handler is not
    /// inferred to run on the main actor.
    static func onSignal(_ number: Int32, handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
        source.setEventHandler(handler: handler)
        source.activate()
        return source
    }

    /// `/etc/machine-id`, which gives each app its phase on this machine;
    /// the host name when there is none (containers).
    static func machineID() -> String {
        if let bytes = try? BoundedReader.read(path: "/etc/machine-id", limit: 4096),
           let line = VersionReader.firstLine(bytes) {
            return line
        }
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Pings systemd's watchdog at half its interval, for as long as the daemon runs.
struct WatchdogService: Service {
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                ServiceNotifier.shared.notify("WATCHDOG=1")
                try await Task.sleep(for: interval)
            }
        }
    }
}
