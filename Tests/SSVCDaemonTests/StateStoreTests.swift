import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Testing

@Suite("state file: older files read whole, newer ones left alone, bad numbers reset one field")
struct StateStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-state-\(UUID().uuidString)")

    /// `Tests/Fixtures/state/NAME`.
    static func fixture(_ name: String) throws -> Data {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: tests.appendingPathComponent("Fixtures/state/\(name)"))
    }

    func store(holding bytes: Data?) throws -> StateStore {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let bytes { try bytes.write(to: folder.appendingPathComponent("state.json")) }
        return StateStore(directory: folder.path)
    }

    func json(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test("a state past 64 MiB is written without its largest stored responses, and the file loads with every app's history")
    func pastTheLimit() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try store(holding: nil)
        // 75 MiB written and read again (half a minute under ThreadSanitizer): off the pool.
        let (leftOut, loaded) = try await offPool {
            try Self.writeAndLoad(store)
        }
        #expect(leftOut == ["a"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
        #expect(size <= StateStore.maximumBytes && size > 45 << 20, "\(size)")
        #expect(loaded.recovery == nil)
        #expect(loaded.state.apps["a"]?.response == nil && loaded.state.apps["a"]?.etag == nil)
        #expect(loaded.state.apps["a"]?.consecutiveFailures == 30 && loaded.state.apps["a"]?.lastSuccess != nil, "the history stays")
        #expect(loaded.state.apps["b"]?.response?.utf8.count == 25 << 20 && loaded.state.apps["b"]?.etag == "\"b\"")
        #expect(loaded.state.apps["c"]?.response?.utf8.count == 20 << 20)
    }

    /// Saves three apps of 30, 25 and 20 MiB of stored response, and loads the file.
    private static func writeAndLoad(_ store: StateStore) throws -> ([String], StateStore.Loaded) {
        var state = DaemonState()
        for (name, megabytes) in [("a", 30), ("b", 25), ("c", 20)] {
            var app = AppState()
            app.response = String(repeating: "x", count: megabytes << 20)
            app.etag = "\"\(name)\""
            app.lastSuccess = Date(timeIntervalSince1970: 1_800_000_000)
            app.consecutiveFailures = megabytes
            state.apps[name] = app
        }
        let leftOut = try store.save(state)
        return (leftOut, try store.load(now: Date()))
    }

    @Test("a schema 1 file with every field in use, as the release before wrote it, is read and written again without loss")
    func previousRelease() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try Self.fixture("schema-1.json")
        let store = try store(holding: original)
        let loaded = try store.load(now: Date())
        #expect(loaded.recovery == nil && loaded.newerSchema == nil && loaded.repairs.isEmpty)
        let app = try #require(loaded.state.apps["billing"])
        #expect(app.messages["id:welcome"]?.count == 3)
        #expect(app.signature?.keyID == "475416EDBA99E22F")
        try store.save(loaded.state)
        let written = try Data(contentsOf: folder.appendingPathComponent("state.json"))
        #expect(try json(written) == json(original))
    }

    @Test("a file of a newer schema is left as it is, not moved aside; the daemon runs on a fresh state")
    func newerSchema() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let newer = Data(#"{"schema": 2, "apps": {"a": {"somethingNew": [1, 2]}}, "fleet": true}"#.utf8)
        let store = try store(holding: newer)
        let loaded = try store.load(now: Date())
        #expect(loaded.newerSchema == 2)
        #expect(loaded.recovery == nil)
        #expect(loaded.state.apps.isEmpty)
        #expect(try Data(contentsOf: folder.appendingPathComponent("state.json")) == newer)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["state.json"])
    }

    @Test("numbers out of range cost their own field only, each said by name")
    func outOfRange() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = String(decoding: try Self.fixture("schema-1.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: #""consecutiveFailures" : 2"#, with: #""consecutiveFailures" : 99999999999999999999"#)
        text = text.replacingOccurrences(of: #""currentVersionNumber" : 17072128"#, with: #""currentVersionNumber" : -5"#)
        text = text.replacingOccurrences(of: #""count" : 3"#, with: #""count" : 18446744073709551616"#)
        text = text.replacingOccurrences(of: #""latestVersionNumber" : 33554432"#, with: #""latestVersionNumber" : 1.5"#)
        let loaded = try store(holding: Data(text.utf8)).load(now: Date())
        #expect(loaded.recovery == nil)
        #expect(loaded.repairs.sorted() == [
            "state.json: apps.billing.consecutiveFailures out of range (99999999999999999999); set to 9223372036854775807",
            "state.json: apps.billing.currentVersionNumber out of range (-5); removed",
            "state.json: apps.billing.decision.latestVersionNumber out of range (1.5); removed",
            "state.json: apps.billing.messages.id:welcome.count out of range (18446744073709551616); set to 18446744073709551615",
        ])
        let app = try #require(loaded.state.apps["billing"])
        #expect(app.consecutiveFailures == .max)
        #expect(app.currentVersionNumber == nil)
        #expect(app.messages["id:welcome"]?.count == .max)
        #expect(app.response == #"{"SSVCLatestVersionKey":"2.0"}"#, "the rest of the app's state is kept")
        #expect(app.decision?.latestVersion == "2.0")
    }

    @Test("a fractional or negative count is no count: it starts again at 0, never at the largest (issue 52)", arguments: [
        ("2.5", "set to 0"), ("-3", "set to 0"), ("1e3", "set to 0"), ("99999999999999999999", "set to 9223372036854775807"),
    ])
    func fractionalCount(written: String, repair: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = String(decoding: try Self.fixture("schema-1.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: #""consecutiveFailures" : 2"#, with: #""consecutiveFailures" : \#(written)"#)
        text = text.replacingOccurrences(of: #""count" : 3"#, with: #""count" : 1.5"#)
        let loaded = try store(holding: Data(text.utf8)).load(now: Date())
        #expect(loaded.recovery == nil)
        #expect(loaded.repairs.sorted() == [
            "state.json: apps.billing.consecutiveFailures out of range (\(written)); \(repair)",
            "state.json: apps.billing.messages.id:welcome.count out of range (1.5); set to 0",
        ])
        let app = try #require(loaded.state.apps["billing"])
        #expect(app.consecutiveFailures == (repair == "set to 0" ? 0 : .max))
        #expect(app.messages["id:welcome"]?.count == 0)
    }

    @Test("a state.json that is a FIFO is moved aside at once, not read with a wait")
    func fifo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try store(holding: nil)
        #expect(mkfifo(folder.appendingPathComponent("state.json").path, 0o600) == 0)
        let loaded = try store.load(now: Date())
        let recovery = try #require(loaded.recovery)
        #expect(recovery.reason.hasSuffix("state.json is a FIFO, not a regular file"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("state.json").path))
    }

    @Test("a record that saturated stays saturated; the failure count too")
    func saturation() {
        let record = MessageDisplayRecord(count: .max, lastShown: nil).shown(at: Date())
        #expect(record.count == .max)
        var state = AppState()
        state.consecutiveFailures = .max
        let failed = state.recording(.failure("x", retryAfter: nil, fetched: true), running: nil, at: Date())
        #expect(failed.consecutiveFailures == .max)
    }
}
