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

    /// Reads a state file in one pass, one app's record at a time (issue
    /// 52): the file's structure is checked without building it, then each
    /// record is read field by field (each held to what a write makes
    /// before it is parsed), its numbers set back to their ranges, and
    /// decoded; a record that will not decode is mended a field at a time.
    /// Reading the whole file into a tree and then decoding it whole took
    /// 11 times its size at the peak (708 MiB for 64 MiB); this holds the
    /// text, one record's tree and the apps kept (1.65 times).
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
        guard let appsText = root.last(where: { $0.key == "apps" })?.value else { return .unusable("not a state file: it has no apps object") }
        var state = DaemonState()
        var notes = ReadNotes()
        // The holds of apps no longer configured are gathered small and
        // the newest kept, so a file of 52,000 of them never holds 52,000
        // app records (1,464 bytes each before any text) at once.
        var bare = BareHolds()
        do {
            // The file's structure is checked already: only `apps` not an object throws here.
            // An app's name that is no text (a byte that is not UTF-8) costs that app.
            let badName = { (error: JSONSyntaxError) in notes.dropped("apps: a record dropped: its name is not text (\(error.description))") }
            try JSONParser.forEachMember(of: bytes, in: appsText, badKey: badName) { name, text in
                // Of an app no longer configured only the hold is read.
                if let bounds, !bounds.configured.contains(name), let found = bareHold(bytes, text, decoder: decoder) {
                    // No hold: nothing of the app is kept, so none of it is read.
                    let only = found.hold.map {
                        AppState(hold: $0).bounded(responseBytes: bounds.responseBytes, shownName: DisplayText.escaped(name, limit: 80), notes: &notes)
                    }
                    bare.add(name, only ?? AppState(), hadMore: found.hadMore)
                    return
                }
                guard var app = record(name, bytes, text, bounds: bounds, decoder: decoder, notes: &notes) else { return }
                // A name given twice: the later record, as a decoder reads it.
                guard let bounds else {
                    state.apps[name] = app
                    return
                }
                app = app.bounded(responseBytes: bounds.responseBytes, shownName: DisplayText.escaped(name, limit: 80), notes: &notes)
                if bounds.configured.contains(name) {
                    state.apps[name] = app
                } else {
                    bare.add(name, app)
                }
            }
        } catch {
            return .unusable("not a state file: it has no apps object")
        }
        let (kept, dropped) = bare.kept()
        for entry in kept { state.apps[entry.name] = AppState(hold: entry.hold) }
        return .state(state, notes: notes.lines, holdsKept: kept.filter(\.hadMore).map(\.name).sorted(), holdsDropped: dropped)
    }

    /// The hold of a record whose app is no longer configured, read alone
    /// (the rest would be dropped: 52,000 such records took 10 s read
    /// whole), nil when it has none, and whether the record held more than
    /// the hold. Nil when the record is no object or its hold does not read
    /// cleanly: the whole record is then read as any other, and what is
    /// wrong with it said.
    private static func bareHold(_ bytes: [UInt8], _ place: Range<Int>, decoder: JSONDecoder) -> (hold: Hold?, hadMore: Bool)? {
        var holdText: Range<Int>?
        var hadMore = false
        do {
            try JSONParser.forEachMember(of: bytes, in: place) { key, field in
                switch (key, String(decoding: bytes[field.prefix(3)], as: UTF8.self)) {
                case ("hold", _): holdText = field
                case ("consecutiveFailures", "0"), ("messages", "{}"): break
                default: hadMore = true
                }
            }
        } catch {
            return nil
        }
        guard let holdText else { return (nil, hadMore) }
        guard let value = try? JSONParser.parse(bytes, in: holdText) else { return nil }
        var members = [(key: "hold", value: value)]
        var unsaid = ReadNotes()
        // A number out of range is said by the whole record's read.
        guard !repairNumbers(in: &members, path: "", notes: &unsaid),
              let hold = try? decoder.decode(Hold.self, from: Data(value.canonicalText.utf8))
        else { return nil }
        return (hold, hadMore)
    }

    /// The most bytes of text one field of an app's record may take, but
    /// `response`, held to `max-response-bytes` (each byte escaped, at
    /// most six): no field ssvc writes comes near it (`seen` keeps 16
    /// versions, a few kilobytes), and 500,000 `seen` entries, 24 MiB of
    /// text, took 160 MiB once parsed.
    package static let maximumFieldBytes = 4 << 20

    /// One app's record, `place` in `bytes`: nil when it cannot be read at all.
    static func record(
        _ name: String, _ bytes: [UInt8], _ place: Range<Int>, bounds: ReadBounds?, decoder: JSONDecoder, notes: inout ReadNotes
    ) -> AppState? {
        let shownName = DisplayText.escaped(name, limit: 80)
        // The decoder reads the file's own bytes, not a copy (a record of a
        // 60 MiB response was held four times over).
        func decode(_ text: [UInt8], _ place: Range<Int>) -> AppState? {
            text.withUnsafeBytes { buffer in
                let slice = UnsafeRawBufferPointer(rebasing: buffer[place])
                guard let start = slice.baseAddress else { return nil }
                return try? decoder.decode(AppState.self, from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: slice.count, deallocator: .none))
            }
        }
        // A record is an object; of anything else the kind is said, and a
        // scalar's value (the text is one field's at most).
        guard bytes[place.lowerBound] == UInt8(ascii: "{") else {
            let found = bytes[place.lowerBound] == UInt8(ascii: "[") ? "an array" : (try? JSONParser.parse(bytes, in: place))?.summary ?? "a value"
            notes.dropped("apps.\(shownName): dropped: \(found) is not an app's record")
            return nil
        }
        var text: [UInt8]?
        do {
            // Field by field, each held to its bound before it is built.
            var members: [(key: String, value: JSONValue)] = []
            var problem: String?
            var cut = false
            do throws(JSONSyntaxError) {
                var fields: [(key: String, value: Range<Int>)] = []
                try JSONParser.forEachMember(of: bytes, in: place) { fields.append(($0, $1)) }
                var seen = Set<String>()
                for (key, field) in fields {
                    guard seen.insert(key).inserted else { throw JSONSyntaxError(message: "duplicate key \"\(key)\"", line: 1, column: 1) }
                    let limit = key == "response" ? (bounds?.responseBytes).map { $0 * 6 + 2 } : bounds.map { _ in maximumFieldBytes }
                    if let limit, field.count > limit {
                        notes.cut("state.json: apps.\(shownName).\(DisplayText.escaped(key, limit: 40)): \(field.count) bytes, past the \(limit) a written state holds; dropped")
                        cut = true
                        continue
                    }
                    members.append((key, try JSONParser.parse(bytes, in: field)))
                }
            } catch {
                problem = error.message
            }
            if let problem {
                // A key given twice the decoder may read; broken text it refuses too.
                if let app = decode(bytes, place) { return app }
                notes.dropped("apps.\(shownName): dropped: not valid JSON (\(problem))")
                return nil
            }
            if repairNumbers(in: &members, path: "apps.\(shownName)", notes: &notes) || cut {
                text = Array(JSONValue.object(members).canonicalText.utf8)
            }
            // The record's tree ends here, before the decoder builds its own.
        }
        if let text {
            if let app = decode(text, text.indices) { return app }
        } else if let app = decode(bytes, place) {
            return app
        }
        // Past `maximumSalvagedRecords` mended, a damaged file's rest goes
        // whole, counted: each mended record is decoded a few times over
        // (100,000 of them kept a start from answering for more than 5 s).
        guard notes.mended < maximumSalvagedRecords else {
            notes.droppedWhole += 1
            return nil
        }
        notes.mended += 1
        guard let record = try? (text.map { try JSONParser.parse($0) } ?? JSONParser.parse(bytes, in: place)) else { return nil }
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
