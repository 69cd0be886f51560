import FoundationEssentials

extension DaemonState {
    /// What a state file's text holds.
    package enum Reading {
        /// The state, with what was repaired, dropped or cut to read it,
        /// in words, and the holds of apps no longer configured as
        /// `pruned` gives them.
        case state(DaemonState, notes: [String], holdsKept: [String], holdsDropped: Int)
        /// A file of a newer ssvc, whose schema this one does not read.
        case newer(schema: Int)
        /// Not a state file of this schema: why.
        case unusable(String)
    }

    /// Reads a state file in one pass, one app's record at a time (issue
    /// 52): the file's structure is checked without building it, then each
    /// record is parsed, its numbers set back to their ranges, and decoded;
    /// a record that will not decode is read field by field. Reading the
    /// whole file into a tree and then decoding it whole took 11 times its
    /// size at the peak (713 MiB for 64 MiB); this holds the text, one
    /// record's tree and the apps read.
    /// What a read keeps: every app held to what a write keeps
    /// (`bounded`), and, given the apps configured, of any other app only
    /// its hold, the newest `maximumKeptHolds` (`pruned`). Nil: all of it.
    package struct ReadBounds: Sendable {
        package var responseBytes: Int
        package var configured: Set<String>

        package init(responseBytes: Int, configured: Set<String>) {
            self.responseBytes = responseBytes
            self.configured = configured
        }
    }

    package static func reading(_ bytes: [UInt8], decoder: JSONDecoder, bounds: ReadBounds? = nil) -> Reading {
        let root: [(key: String, value: Range<Int>)]
        do {
            root = try JSONParser.members(of: bytes)
        } catch {
            return .unusable("not a state file: \(error.description)")
        }
        guard let schemaText = root.last(where: { $0.key == "schema" }).map({ String(decoding: bytes[$0.value], as: UTF8.self) }),
              let schema = Int(schemaText)
        else { return .unusable("not a state file: it has no schema number") }
        guard schema <= currentSchema else { return .newer(schema: schema) }
        guard schema == currentSchema else { return .unusable("schema \(schema) is not \(currentSchema)") }
        guard let appsText = root.last(where: { $0.key == "apps" })?.value,
              let apps = try? JSONParser.members(of: bytes, in: appsText)
        else { return .unusable("not a state file: it has no apps object") }
        var state = DaemonState()
        var notes = ReadNotes()
        // The holds of apps no longer configured are gathered small and
        // the newest kept, so a file of 52,000 of them never holds 52,000
        // app records (1,464 bytes each before any text) at once.
        var bare = BareHolds()
        for (name, text) in apps {
            guard var app = record(name, bytes[text], decoder: decoder, notes: &notes) else { continue }
            // A name given twice: the later record, as a decoder reads it.
            guard let bounds else {
                state.apps[name] = app
                continue
            }
            app = app.bounded(responseBytes: bounds.responseBytes, shownName: DisplayText.escaped(name, limit: 80), notes: &notes)
            if bounds.configured.contains(name) {
                state.apps[name] = app
            } else {
                bare.add(name, app)
            }
        }
        let (kept, dropped) = bare.kept()
        for entry in kept { state.apps[entry.name] = AppState(hold: entry.hold) }
        return .state(state, notes: notes.lines, holdsKept: kept.filter(\.hadMore).map(\.name).sorted(), holdsDropped: dropped)
    }

    /// One app's record: nil when it cannot be read at all.
    private static func record(_ name: String, _ text: ArraySlice<UInt8>, decoder: JSONDecoder, notes: inout ReadNotes) -> AppState? {
        let shownName = DisplayText.escaped(name, limit: 80)
        guard let value = try? JSONParser.parse(Array(text)) else {
            // Checked already as JSON: a key given twice in it. The decoder
            // reads such a record or none.
            if let app = try? decoder.decode(AppState.self, from: Data(text)) { return app }
            notes.dropped("apps.\(shownName): dropped: its fields could not be read")
            return nil
        }
        guard case var .object(members) = value else {
            notes.dropped("apps.\(shownName): dropped: \(value.summary) is not an app's record")
            return nil
        }
        let repaired = repairNumbers(in: &members, path: "apps.\(shownName)", notes: &notes)
        let record = JSONValue.object(members)
        if let app = try? decoder.decode(AppState.self, from: repaired ? Data(record.canonicalText.utf8) : Data(text)) { return app }
        // Past `maximumSalvagedRecords` mended, a damaged file's rest goes
        // whole, counted: each mended record is decoded a few times over
        // (100,000 of them kept a start from answering for more than 5 s).
        guard notes.mended < maximumSalvagedRecords else {
            notes.droppedWhole += 1
            return nil
        }
        notes.mended += 1
        return salvaged(record, shownName: shownName, decoder: decoder, notes: &notes)
    }
}

/// What reading a state file repaired and dropped: the first
/// `maximumSalvageLines` of each said, the rest counted (100,000 bad holds
/// wrote 100,000 warnings).
struct ReadNotes {
    private var repairs: [String] = []
    private var moreRepairs = 0
    private var drops: [String] = []
    private var moreDrops = 0
    private var cuts: [String] = []
    private var moreCuts = 0
    /// Records mended field by field, and records dropped whole past those.
    var mended = 0
    var droppedWhole = 0

    mutating func repaired(_ line: String) {
        if repairs.count < DaemonState.maximumSalvageLines { repairs.append(line) } else { moreRepairs += 1 }
    }

    mutating func dropped(_ line: String) {
        if drops.count < DaemonState.maximumSalvageLines { drops.append("state.json: " + line) } else { moreDrops += 1 }
    }

    mutating func cut(_ line: String) {
        if cuts.count < DaemonState.maximumSalvageLines { cuts.append(line) } else { moreCuts += 1 }
    }

    var lines: [String] {
        var lines = repairs
        if moreRepairs > 0 { lines.append("state.json: and \(moreRepairs) more numbers out of range, each reset") }
        lines += drops
        if moreDrops > 0 { lines.append("state.json: and \(moreDrops) more fields or records dropped") }
        if droppedWhole > 0 {
            lines.append("state.json: \(droppedWhole) more app records could not be read and were dropped whole, past \(DaemonState.maximumSalvagedRecords) mended")
        }
        lines += cuts
        if moreCuts > 0 { lines.append("state.json: and \(moreCuts) more values cut to their bounds") }
        return lines
    }
}
