import Foundation
import SSVCCore
@testable import SSVCDaemon
import Testing

/// `holds.jsonl`: the holds set and lifted since `state.json` was last
/// written, read back over it at the start (issue 52).
@Suite("the holds log: read back at the start, line by line, then written into the state")
struct HoldLogTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-holds-\(UUID().uuidString)")
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    var logPath: String { folder.appendingPathComponent("holds.jsonl").path }

    /// A state file of `state`, and a log of `log`.
    func store(_ state: DaemonState, log: String?) throws -> StateStore {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = StateStore(directory: folder.path)
        try store.save(state)
        if let log { try log.write(toFile: logPath, atomically: false, encoding: .utf8) }
        return store
    }

    static func line(_ app: String, _ hold: Hold?) -> String {
        String(decoding: HoldLogRecord(app: app, hold: hold).line(StateStore.encoder), as: UTF8.self)
    }

    static func hold(_ version: String, _ seconds: Double = 0) -> Hold {
        Hold(version: version, since: start.addingTimeInterval(seconds))
    }

    @Test("holds and lifts in the log apply over the state in order, the last line of an app winning; the state is then written with them and the log removed")
    func replayedInOrder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var state = DaemonState()
        var checked = AppState()
        checked.consecutiveFailures = 3
        checked.hold = Self.hold("0.1")
        state.apps["a"] = checked
        var failing = AppState(hold: Self.hold("2.0"))
        failing.consecutiveFailures = 1
        state.apps["b"] = failing
        state.apps["d"] = AppState(hold: Self.hold("2.5"))
        let log = Self.line("a", Self.hold("1.0", 1)) + Self.line("new", Self.hold("3.0", 2)) + Self.line("a", Self.hold("1.1", 3))
            + Self.line("b", nil) + Self.line("c", Self.hold("4.0", 4)) + Self.line("c", nil) + Self.line("d", nil)
        let store = try store(state, log: log)
        let bounds = DaemonState.ReadBounds(responseBytes: 1_000, configured: ["a", "b", "c", "d", "new"])
        let loaded = try store.load(now: Date(), bounds: bounds)
        #expect(loaded.holdsReplayed == 7 && loaded.repairs.isEmpty, "\(loaded.repairs)")
        #expect(loaded.state.apps["a"]?.hold == Self.hold("1.1", 3) && loaded.state.apps["a"]?.consecutiveFailures == 3, "the rest of a's record kept")
        #expect(loaded.state.apps["new"]?.hold == Self.hold("3.0", 2), "a record made for an app never checked")
        #expect(loaded.state.apps["b"] != nil && loaded.state.apps["b"]?.hold == nil, "lifted, the record of a configured app kept")
        #expect(loaded.state.apps["c"] == nil && loaded.state.apps["d"] == nil, "a record left with nothing goes")
        #expect(!FileManager.default.fileExists(atPath: logPath), "the log is removed once the state holds it")
        let again = try store.load(now: Date(), bounds: bounds)
        #expect(again.state == loaded.state && again.holdsReplayed == 0, "written into state.json")
    }

    @Test("a line the state file already holds changes nothing when read again (a crash between the state's write and the log's removal)")
    func replayIsIdempotent() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = Self.line("a", Self.hold("1.0")) + Self.line("b", nil)
        var state = DaemonState()
        _ = state.replay(holdLog: Array(log.utf8), decoder: StateStore.decoder, bounds: nil)
        let store = try store(state, log: log)
        #expect(try store.load(now: Date()).state == state)
    }

    @Test("a lift of an app no longer configured takes its record; holds the log adds to such apps are held to 1,000, the oldest dropped")
    func unconfiguredApps() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var state = DaemonState()
        for index in 0..<995 { state.apps["gone-\(index)"] = AppState(hold: Self.hold("1.0", Double(index))) }
        let log = (0..<10).map { Self.line("log-\($0)", Self.hold("2.0", 10_000 + Double($0))) }.joined() + Self.line("gone-7", nil)
        let store = try store(state, log: log)
        let loaded = try store.load(now: Date(), bounds: DaemonState.ReadBounds(responseBytes: 1_000, configured: []))
        #expect(loaded.state.apps["gone-7"] == nil, "lifted: nothing else is left of it")
        #expect(loaded.state.apps.count == 1_000 && loaded.holdsDropped == 4)
        #expect((0..<10).allSatisfy { loaded.state.apps["log-\($0)"] != nil }, "the newest kept")
        #expect(["gone-0", "gone-1", "gone-2", "gone-3"].allSatisfy { loaded.state.apps[$0] == nil }, "the oldest dropped")
    }

    @Test("a line that cannot be read is dropped alone, said with its number in the words of the state file's read; a last line cut short by a crash too", arguments: [
        ("not json", "line 1: not a hold line"),
        (#"{"hold":null}"#, "line 1: it names no app"),
        (#"{"app":"a"}"#, "line 1: it has no hold"),
        (#"{"app":7,"hold":null}"#, "line 1: its app is not a string"),
        (#"{"app":"a","hold":null,"extra":1}"#, #"line 1: it has a key "extra""#),
        (#"{"app":"a","hold":{"version":"2.0","since":"2027-01-01T00:00:00Z","number":-1}}"#, "line 1: apps.a.hold.number out of range"),
        (#"{"app":"a","hold":{"version":"2.0"}}"#, "line 1: apps.a.hold"),
        (#"{"app":"a","hold":{"version":"2.0","since":"-0001-01-01T00:00:00Z"}}"#, "line 1: apps.a.hold"),
        (#"{"app":"a","hold":"2.0"}"#, "line 1: apps.a.hold"),
        (#"{"app":"a","hold":{"version":"2.0","since":"2027-01-01T00:00:00Z"}"#, "line 1: not a hold line"),
    ])
    func badLine(line: String, said: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var state = DaemonState()
        state.apps["a"] = AppState(hold: Self.hold("1.0"))
        let good = Self.line("b", Self.hold("5.0"))
        let store = try store(state, log: line + "\n" + good + String(good.dropLast()))
        let loaded = try store.load(now: Date())
        #expect(loaded.repairs.contains { $0.hasPrefix("holds.jsonl " + said) }, "\(loaded.repairs)")
        #expect(loaded.repairs.last?.hasPrefix("holds.jsonl line 3: cut short") == true, "\(loaded.repairs)")
        #expect(loaded.state.apps["b"]?.hold == Self.hold("5.0"), "the good line after it applied")
        // A number out of range is set back, the hold kept, as in state.json.
        let version = loaded.state.apps["a"]?.hold?.version
        #expect(version == (said.contains("number") ? "2.0" : "1.0"), "\(String(describing: version))")
    }

    @Test("a log that is no file (a FIFO) is moved aside without a wait and said; the state is read")
    func fifoLog() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var state = DaemonState()
        state.apps["a"] = AppState(hold: Self.hold("1.0"))
        let store = try store(state, log: nil)
        #expect(mkfifo(logPath, 0o600) == 0)
        let loaded = try store.load(now: Date())
        #expect(loaded.state == state)
        #expect(loaded.repairs.contains { $0.hasPrefix("holds.jsonl: ") && $0.contains("moved to \(logPath).corrupt-") }, "\(loaded.repairs)")
        #expect(!FileManager.default.fileExists(atPath: logPath))
    }

    @Test("a log that is a symbolic link is moved aside unread: its target's lines are never said")
    func linkedLog() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try store(DaemonState(), log: nil)
        let target = folder.appendingPathComponent("elsewhere").path
        try "secret-line\n".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(symlink(target, logPath) == 0)
        let loaded = try store.load(now: Date())
        #expect(loaded.repairs.count == 1 && loaded.repairs[0].contains("is a symbolic link, not read; moved to \(logPath).corrupt-"), "\(loaded.repairs)")
        #expect(!loaded.repairs.joined().contains("'s'"), "nothing of the target said")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "secret-line\n")
    }

    @Test("a rewrite of the log killed before its rename leaves a temporary: removed at the start")
    func leftoverTemporary() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try store(DaemonState(), log: nil)
        let temporary = folder.appendingPathComponent("holds.jsonl.tmp-123-abc").path
        try Self.line("a", Self.hold("1.0")).write(toFile: temporary, atomically: false, encoding: .utf8)
        _ = try store.load(now: Date())
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test("beside a state file of a newer ssvc the log is left as it is")
    func newerState() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try store(DaemonState(), log: Self.line("a", Self.hold("1.0")))
        try #"{"schema":99,"apps":{}}"#.write(toFile: store.path, atomically: false, encoding: .utf8)
        let loaded = try store.load(now: Date())
        #expect(loaded.newerSchema == 99 && loaded.state.apps.isEmpty)
        #expect(FileManager.default.fileExists(atPath: logPath))
    }
}
