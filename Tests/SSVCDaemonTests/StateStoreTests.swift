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

    @Test("the state is written compact: whatever loads saves again under the same limit (issue 52)")
    func compact() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try Self.fixture("schema-1.json")
        let store = try store(holding: original)
        try store.save(try store.load(now: Date()).state)
        let written = try Data(contentsOf: folder.appendingPathComponent("state.json"))
        #expect(!written.contains(UInt8(ascii: "\n")) && written.count < original.count, "\(written.count) of \(original.count)")
        // Many apps written, read and written again: never larger.
        var state = DaemonState()
        for index in 0..<5_000 {
            var app = AppState()
            app.hold = Hold(version: "1.\(index)", number: nil, since: Date(timeIntervalSince1970: 1_800_000_000))
            app.consecutiveFailures = index
            state.apps["app-\(index)"] = app
        }
        try store.save(state)
        let first = try Data(contentsOf: folder.appendingPathComponent("state.json"))
        try store.save(try store.load(now: Date()).state)
        let second = try Data(contentsOf: folder.appendingPathComponent("state.json"))
        #expect(second == first)
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

    @Test("a field that cannot be read costs that field, an object that then lacks a field it needs that object, never the file (issue 52)", arguments: [
        (#""number" : -1, "since" : "2026-01-01T00:00:00Z", "version" : "1.0""#, true, ["apps.billing.hold.number out of range (-1); removed"]),
        (#""number" : 18446744073709551616, "since" : "2026-01-01T00:00:00Z", "version" : "1.0""#, true, ["apps.billing.hold.number out of range (18446744073709551616); removed"]),
        (#""number" : 1.5, "since" : "2026-01-01T00:00:00Z", "version" : "1.0""#, true, ["apps.billing.hold.number out of range (1.5); removed"]),
        (#""number" : "seven", "since" : "2026-01-01T00:00:00Z", "version" : "1.0""#, true, [#"apps.billing.hold.number: the string "seven" is not a version number"#]),
        (#""since" : "2026-01-01T00:00:00Z", "version" : null"#, false, ["apps.billing.hold.version: null is not a string", "apps.billing.hold: dropped: it has no version"]),
        (#""since" : -5, "version" : "1.0""#, false, ["apps.billing.hold.since: -5 is not a string", "apps.billing.hold: dropped: it has no since"]),
        (#""version" : "1.0""#, false, ["apps.billing.hold: dropped: it has no since"]),
    ] as [(String, Bool, [String])])
    func fieldByField(hold: String, kept: Bool, said: [String]) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = String(decoding: try Self.fixture("schema-1.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: #""consecutiveFailures" : 2,"#, with: #""consecutiveFailures" : 2, "hold" : {\#(hold)},"#)
        // Beside it, an app no longer configured whose count is text, and a record that is no record.
        text = text.replacingOccurrences(of: #""apps" : {"#, with: #""apps" : {"gone" : {"consecutiveFailures" : "x", "messages" : {}}, "junk" : 5, "#)
        let loaded = try store(holding: Data(text.utf8)).load(now: Date())
        #expect(loaded.recovery == nil, "\(String(describing: loaded.recovery?.reason))")
        let app = try #require(loaded.state.apps["billing"], "the app's record stays: \(loaded.repairs)")
        #expect(app.response == #"{"SSVCLatestVersionKey":"2.0"}"# && app.consecutiveFailures == 2 && app.messages["id:welcome"]?.count == 3)
        #expect((app.hold != nil) == kept)
        if kept { #expect(app.hold?.version == "1.0" && app.hold?.number == nil) }
        for line in said { #expect(loaded.repairs.contains("state.json: \(line)"), "\(loaded.repairs)") }
        #expect(loaded.state.apps["gone"]?.consecutiveFailures == 0)
        #expect(loaded.repairs.contains(#"state.json: apps.gone.consecutiveFailures: the string "x" is not a whole number"#), "\(loaded.repairs)")
        #expect(loaded.repairs.contains("state.json: apps.junk: dropped: 5 is not an app's record"), "\(loaded.repairs)")
        #expect(loaded.state.apps["junk"] == nil)
        #expect(!loaded.repairs.joined().contains("DecodingError") && !loaded.repairs.joined().contains("The given data"), "\(loaded.repairs)")
    }

    @Test("past 1,000 records mended field by field, the rest of a damaged file goes whole, counted: a start stays quick (issue 52)")
    func salvageBounded() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = DaemonState.maximumSalvagedRecords + 5
        let apps = (0..<count).map { #""a\#($0)":{"consecutiveFailures":"x","messages":{}}"# }.joined(separator: ",")
        let loaded = try store(holding: Data(#"{"schema":1,"apps":{"good":{"consecutiveFailures":1,"messages":{}},\#(apps)}}"#.utf8)).load(now: Date())
        #expect(loaded.recovery == nil)
        #expect(loaded.state.apps.count == DaemonState.maximumSalvagedRecords + 1, "\(loaded.state.apps.count)")
        #expect(loaded.state.apps["good"]?.consecutiveFailures == 1)
        #expect(loaded.repairs.contains("state.json: 5 more app records could not be read and were dropped whole, past 1000 mended"), "\(loaded.repairs.suffix(3))")
        #expect(loaded.repairs.count == DaemonState.maximumSalvageLines + 2, "16 lines, the count of the rest, the records dropped whole")
    }

    @Test("several bad members, one of which the decoder names no place for, are each dropped alone; numbers out of range said 16 times, then counted")
    func severalBadMembers() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = #"{"consecutiveFailures":"x","messages":5,"lastCheck":"not a date","etag":7,"lastError":"kept"}"#
        let holds = (0..<40).map { #""h\#($0)":{"consecutiveFailures":0,"messages":{},"hold":{"version":"1","number":-1,"since":"2026-01-01T00:00:00Z"}}"# }
        let text = #"{"schema":1,"apps":{"r":\#(record),\#(holds.joined(separator: ","))}}"#
        let loaded = try store(holding: Data(text.utf8)).load(now: Date())
        let app = try #require(loaded.state.apps["r"], "\(loaded.repairs)")
        #expect(app.lastError == "kept" && app.lastCheck == nil && app.etag == nil && app.consecutiveFailures == 0 && app.messages.isEmpty)
        #expect(loaded.state.apps["h39"]?.hold?.version == "1")
        #expect(loaded.repairs.filter { $0.contains("hold.number out of range") }.count == DaemonState.maximumSalvageLines)
        #expect(loaded.repairs.contains("state.json: and 24 more numbers out of range, each reset"), "\(loaded.repairs)")
        #expect(loaded.repairs.contains(#"state.json: apps.r.lastCheck: the string "not a date" is not what the field holds"#), "\(loaded.repairs)")
    }

    @Test("the apps left after pruning take room for themselves, not for every app read (issue 52)")
    func prunedCompact() {
        var state = DaemonState()
        for index in 0..<20_000 { state.apps["gone-\(index)"] = AppState() }
        state.apps["here"] = AppState()
        let (pruned, _, _) = state.pruned(to: ["here"])
        #expect(pruned.apps.count == 1)
        // Before, the dictionary kept its room for 20,001 apps: 150 MiB
        // resident for the daemon's life after the bench's worst state file.
        #expect(pruned.apps.capacity < 100, "room for \(pruned.apps.capacity) apps")
        let unchanged = pruned.pruned(to: ["here"]).state
        #expect(unchanged.apps.count == 1 && unchanged.apps.capacity < 100)
    }

    @Test("holds of apps no longer configured: at most 1,000 kept, the oldest dropped and counted (issue 52)")
    func keptHolds() {
        var state = DaemonState()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<1_005 {
            var app = AppState()
            app.hold = Hold(version: "1.0", since: start.addingTimeInterval(Double(index)))
            app.consecutiveFailures = 1
            state.apps["gone-\(index)"] = app
        }
        state.apps["here"] = AppState()
        let (pruned, kept, dropped) = state.pruned(to: ["here"])
        #expect(dropped == 5)
        #expect(pruned.apps.count == 1_001 && pruned.apps["here"] != nil)
        #expect((0..<5).allSatisfy { pruned.apps["gone-\($0)"] == nil }, "the oldest go")
        #expect(pruned.apps["gone-5"]?.hold != nil && pruned.apps["gone-1004"]?.consecutiveFailures == 0, "the rest keep their hold alone")
        #expect(kept.count == 1_000 && !kept.contains("gone-0"))
        #expect(pruned.pruned(to: ["here"]).holdsDropped == 0)
    }

    @Test("a state read is held to what a write keeps: a response past max-response-bytes, seen past 16 (issue 52)")
    func boundedOnRead() {
        var state = DaemonState()
        var app = AppState()
        app.response = String(repeating: "x", count: 2_000)
        app.etag = "\"e\""
        app.seen = Array((0..<500).map { SeenVersion(version: "1.\($0)", at: Date(timeIntervalSince1970: 1_800_000_000 + Double($0))) }.reversed())
        app.lastError = String(repeating: "e", count: 10_000)
        state.apps["big"] = app
        var small = AppState()
        small.response = "{}"
        state.apps["small"] = small
        let (bounded, cut) = state.bounded(responseBytes: 1_000)
        let big = bounded.apps["big"]
        #expect(big?.response == nil && big?.etag == nil)
        #expect(big?.seen?.map(\.version) == (484..<500).map { "1.\($0)" })
        #expect((big?.lastError?.utf8.count ?? 0) <= DisplayText.maximumStoredBytes)
        #expect(bounded.apps["small"]?.response == "{}")
        #expect(cut == [
            "state.json: apps.big.response: 2000 bytes, past max-response-bytes (1000); dropped",
            "state.json: apps.big.seen: 500 versions, past 16; the newest kept",
        ])
        // Years 0001 to 9999 only, as on write.
        var far = AppState()
        far.lastCheck = Date(timeIntervalSince1970: 253_402_300_800)
        far.lastSuccess = Date(timeIntervalSince1970: 253_402_300_799)
        far.hold = Hold(version: "1.0", since: Date(timeIntervalSince1970: -62_135_596_801))
        let (years, said) = DaemonState(apps: ["far": far]).bounded(responseBytes: 1_000)
        #expect(years.apps["far"]?.lastCheck == nil && years.apps["far"]?.lastSuccess != nil && years.apps["far"]?.hold == nil)
        #expect(said.count == 2, "\(said)")
    }

    @Test("read with bounds, record by record, the state is what reading it whole, bounding and pruning give; the holds kept and dropped the same (issue 52)")
    func boundedReadAsPruned() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var state = DaemonState()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<1_010 {
            var app = AppState()
            // Read in name order, not in age order; every third a bare hold already.
            app.hold = Hold(version: "1.0", since: start.addingTimeInterval(Double((index * 7_919) % 1_010)))
            if index % 3 != 0 { app.consecutiveFailures = 2 }
            state.apps["gone-\(index)"] = app
        }
        state.apps["gone-unheld"] = AppState()
        var here = AppState()
        here.response = String(repeating: "x", count: 2_000)
        here.seen = (0..<40).map { SeenVersion(version: "1.\($0)", at: start.addingTimeInterval(Double($0))) }
        state.apps["here"] = here
        state.apps["also-here"] = AppState()
        let store = try store(holding: nil)
        try store.save(state)
        // One hold whose number is out of range: read whole, and said.
        var text = try String(contentsOfFile: store.path, encoding: .utf8)
        let bad = #""gone-bad":{"consecutiveFailures":0,"messages":{},"hold":{"version":"1.0","number":-1,"since":"2027-01-01T00:00:00Z"}},"#
        text = text.replacingOccurrences(of: #""apps":{"#, with: #""apps":{"# + bad)
        try text.write(toFile: store.path, atomically: true, encoding: .utf8)

        let bounds = DaemonState.ReadBounds(responseBytes: 1_000, configured: ["here", "also-here", "absent"])
        let read = try store.load(now: Date(), bounds: bounds)
        let whole = try store.load(now: Date())
        let (bounded, cut) = whole.state.bounded(responseBytes: 1_000)
        let (pruned, kept, dropped) = bounded.pruned(to: bounds.configured)
        #expect(read.state == pruned)
        #expect(read.state.apps.count == 1_002 && read.state.apps["here"]?.response == nil && read.state.apps["gone-unheld"] == nil)
        #expect(read.holdsKept == kept && read.holdsDropped == dropped && dropped == 11)
        #expect(kept.count > 600 && kept.allSatisfy { whole.state.apps[$0]?.consecutiveFailures == 2 }, "only the records that held more than a hold: \(kept.count)")
        #expect(read.repairs == whole.repairs + cut, "the repairs and cuts said as reading whole and bounding say them")
        #expect(read.state.apps["gone-bad"]?.hold?.number == nil && read.repairs.contains { $0.contains("apps.gone-bad.hold.number out of range") })
        #expect(read.state.apps.capacity < 4_000, "room for \(read.state.apps.capacity) apps")
    }

    @Test("damage inside one app's record costs that record, not the file: invalid UTF-8, a raw control character, a bad escape, 10,000 levels of nesting (issue 52)", arguments: [
        Array(#"{"lastError":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8),
        Array(#"{"lastError":"a"#.utf8) + [0x01] + Array(#""}"#.utf8),
        Array(#"{"lastError":"\x"}"#.utf8),
        Array(#"{"x":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 10_000) + Array(repeating: UInt8(ascii: "]"), count: 10_000) + [UInt8(ascii: "}")],
    ])
    func damagedRecord(record: [UInt8]) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = #"{"consecutiveFailures":2,"messages":{},"hold":{"version":"1.5","since":"2026-01-01T00:00:00Z"}}"#
        let text = Array(#"{"schema":1,"apps":{"bad":"#.utf8) + record + Array(#","kept":\#(good)}}"#.utf8)
        let loaded = try store(holding: Data(text)).load(now: Date(), bounds: DaemonState.ReadBounds(responseBytes: 1_000, configured: ["kept", "bad"]))
        #expect(loaded.recovery == nil, "\(String(describing: loaded.recovery))")
        #expect(loaded.state.apps["kept"]?.hold?.version == "1.5" && loaded.state.apps["kept"]?.consecutiveFailures == 2)
        #expect(loaded.state.apps["bad"] == nil)
        #expect(loaded.repairs.contains { $0.hasPrefix("state.json: apps.bad: dropped: not valid JSON (") }, "\(loaded.repairs)")
    }

    @Test("an app's name that is no text costs that app, not the file: a byte that is not UTF-8, a bad escape (issue 52)", arguments: [
        [0xFF, 0xFE], Array(#"\x"#.utf8), Array(#"\uD800"#.utf8),
    ])
    func damagedName(name: [UInt8]) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = #"{"consecutiveFailures":2,"messages":{}}"#
        let text = Array(#"{"schema":1,"apps":{""#.utf8) + name + Array(#"":\#(good),"kept":\#(good)}}"#.utf8)
        for bounds in [nil, DaemonState.ReadBounds(responseBytes: 1_000, configured: ["kept"])] {
            let loaded = try store(holding: Data(text)).load(now: Date(), bounds: bounds)
            #expect(loaded.recovery == nil, "\(String(describing: loaded.recovery))")
            #expect(loaded.state.apps.keys.sorted() == ["kept"] && loaded.state.apps["kept"]?.consecutiveFailures == 2)
            #expect(loaded.repairs.contains { $0.hasPrefix("state.json: apps: a record dropped: its name is not text (not valid JSON: ") }, "\(loaded.repairs)")
        }
    }

    @Test("a field past what a write holds is dropped before it is parsed, the rest of its record kept: 100,000 seen versions (5 MB), a response past 6 times max-response-bytes (issue 52)")
    func fieldPastItsBound() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let seen = (0..<100_000).map { #"{"version":"1.\#($0)","at":"2026-01-01T00:00:00Z"}"# }.joined(separator: ",")
        let text = #"{"schema":1,"apps":{"kept":{"consecutiveFailures":2,"messages":{},"seen":[\#(seen)],"response":"\#(String(repeating: "x", count: 7_000))"}}}"#
        let loaded = try store(holding: Data(text.utf8)).load(now: Date(), bounds: DaemonState.ReadBounds(responseBytes: 1_000, configured: ["kept"]))
        let app = try #require(loaded.state.apps["kept"], "\(loaded.repairs)")
        #expect(app.consecutiveFailures == 2 && app.seen == nil && app.response == nil)
        #expect(loaded.repairs.contains("state.json: apps.kept.response: 7002 bytes, past the 6002 a written state holds; dropped"), "\(loaded.repairs)")
        let seenBytes = seen.utf8.count + 2
        #expect(seenBytes > DaemonState.maximumFieldBytes)
        #expect(loaded.repairs.contains("state.json: apps.kept.seen: \(seenBytes) bytes, past the \(DaemonState.maximumFieldBytes) a written state holds; dropped"), "\(loaded.repairs)")
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
