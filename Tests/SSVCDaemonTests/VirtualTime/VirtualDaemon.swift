import Foundation
import Logging
import SSVCControl
import SSVCCore
@testable import SSVCDaemon
import NIOConcurrencyHelpers

/// Journal entries and notifications, recorded for a test to read.
final class Record: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let contents = NIOLockedValueBox<(entries: [Entry], notifications: [String])>(([], []))

    var entries: [Entry] { contents.withLockedValue { $0.entries } }
    var messages: [String] { entries.map(\.message) }
    var notifications: [String] { contents.withLockedValue { $0.notifications } }

    func add(_ entry: Entry) { contents.withLockedValue { $0.entries.append(entry) } }
    func notify(_ text: String) { contents.withLockedValue { $0.notifications.append(text) } }

    /// How many entries say `text` somewhere in their message.
    func count(_ text: String) -> Int { messages.filter { $0.contains(text) }.count }
}

/// A log handler that writes into a `Record`.
struct RecordingLogHandler: LogHandler {
    let record: Record
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (metadata.merging(event.metadata ?? [:]) { $1 }).mapValues { "\($0)" }
        record.add(Record.Entry(level: event.level, message: "\(event.message)", metadata: fields))
    }
}

/// The check service in process, on a manual clock: its configuration read
/// from a file like ssvcd's, its state in a folder of its own, its journal
/// and notifications recorded. Nothing runs unless the test moves the clock.
final class VirtualDaemon {
    /// 2027-01-15T08:00:00Z.
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    /// `m1`: the machine id whose phase for app `a` is pinned elsewhere (0.31085210535104735).
    static let machineID = "m1"

    let clock: ManualClock
    let folder: URL
    let configPath: String
    let record = Record()
    let jitter: Double
    /// Servers and running versions in memory, when the test gives them.
    let transport: MemoryTransport?
    let versions: MemoryVersions?
    private(set) var service: CheckService

    var stateDirectory: String { folder.appendingPathComponent("state").path }
    var statePath: String { stateDirectory + "/state.json" }

    /// `daemon`: extra `[daemon]` lines (the windows default to 600 and 3600 s
    /// as shipped, `min-interval-seconds` to 0); `apps`: whole `[[app]]` tables.
    init(
        daemon: String = "", apps: String, state: DaemonState = DaemonState(), jitter: Double = 1, clock: ManualClock? = nil,
        transport: MemoryTransport? = nil, versions: MemoryVersions? = nil
    ) throws {
        self.clock = clock ?? ManualClock(now: Self.epoch)
        self.jitter = jitter
        self.transport = transport
        self.versions = versions
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-virtual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.appendingPathComponent("state").path, withIntermediateDirectories: true)
        configPath = folder.appendingPathComponent("ssvcd.toml").path
        let minimum = daemon.contains("min-interval-seconds") ? "" : "min-interval-seconds = 0\n"
        try """
            [daemon]
            state-dir = "state"
            socket = "control.sock"
            apps-dir = "apps.d"
            \(minimum)\(daemon)

            \(apps)
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
        service = try Self.makeService(
            configPath: configPath, state: state, clock: self.clock, record: record, jitter: jitter, transport: transport, versions: versions
        )
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    private static func makeService(
        configPath: String, state: DaemonState, clock: ManualClock, record: Record, jitter: Double, transport: MemoryTransport?,
        versions: MemoryVersions?
    ) throws -> CheckService {
        let overrides = ConfigurationLoader.Overrides(mainFile: configPath)
        let configuration = try ConfigurationLoader.load(overrides, environment: [:])
        var runtime = CheckService.Runtime(clock: clock, jitter: { jitter }, notify: { record.notify($0) })
        if let transport { runtime.transport = { _, _ in transport } }
        if let versions { runtime.readVersion = { try await versions.read($0, $1) } }
        return CheckService(
            configuration: configuration, overrides: overrides, environment: [:], state: state,
            store: StateStore(directory: configuration.daemon.stateDirectory), logger: Logger(label: "test") { _ in RecordingLogHandler(record: record) },
            machineID: machineID, machine: MachineFacts(), runtime: runtime
        )
    }

    func start() async {
        await service.start()
    }

    func stop() async {
        await service.stop()
    }

    /// Stops, then starts a new service on the state file the old one left.
    func restart() async throws {
        await service.stop()
        let loaded = try StateStore(directory: stateDirectory).load(now: clock.now)
        service = try Self.makeService(
            configPath: configPath, state: loaded.state, clock: clock, record: record, jitter: jitter, transport: transport, versions: versions
        )
        await service.start()
    }

    /// Replaces the configuration file's text `old` with `new`.
    func edit(_ old: String, _ new: String) throws {
        let text = try String(contentsOfFile: configPath, encoding: .utf8)
        precondition(text.contains(old), "\(old) is not in the configuration")
        try text.replacingOccurrences(of: old, with: new).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    func status(_ app: String) async -> AppStatusView? {
        await service.status(of: app)?.first.map(AppStatusView.init)
    }

    /// The state file as written, nil when there is none, once the write
    /// under way (off the executor) has ended.
    var stateFile: DaemonState? {
        get async {
            await service.writesSettled()
            return stateFileNow
        }
    }

    /// The state on disk as it is now, a write under way or not: the
    /// state file with the holds log's lines applied, as a start reads
    /// them, read without the start's writing them back.
    var stateFileNow: DaemonState? {
        let log = FileManager.default.contents(atPath: stateDirectory + "/holds.jsonl")
        var state = DaemonState()
        if let bytes = FileManager.default.contents(atPath: statePath) {
            guard case let .state(read, _, _, _) = DaemonState.reading(Array(bytes), decoder: StateStore.decoder) else { return nil }
            state = read
        } else if log == nil {
            return nil
        }
        if let log { _ = state.replay(holdLog: Array(log), decoder: StateStore.decoder, bounds: nil) }
        return state
    }
}

/// An app's status with its times as dates.
struct AppStatusView {
    let status: String
    let nextCheck: Date?
    let nextCheckReason: String
    let pendingVersion: String?
    let offerAt: Date?
    let latestVersion: String?
    let consecutiveFailures: Int

    init(_ status: AppStatus) {
        self.status = status.status.rawValue
        nextCheck = status.nextCheck.flatMap(RFC3339.parse)
        nextCheckReason = status.nextCheckReason.rawValue
        pendingVersion = status.pendingVersion
        offerAt = status.offerAt.flatMap(RFC3339.parse)
        latestVersion = status.latestVersion
        consecutiveFailures = status.consecutiveFailures
    }
}

extension CheckService {
    /// Takes the reload turn as a reload would, for a test that queues reloads behind it.
    func enterReloadTurn() async {
        await reloads.enter()
    }

    func leaveReloadTurn() {
        reloads.leave()
    }
}
