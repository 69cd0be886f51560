import FoundationEssentials

/// One line of `holds.jsonl`, the log of the holds set and lifted since
/// `state.json` was last written (issue 52): a hold is on disk before its
/// answer by an append of this line and an fdatasync, not by a rewrite of
/// the whole state (8 MiB with 10,000 apps, 30 of them for 1,000 holds).
/// The state file follows with its batch, and the log is emptied once a
/// state file holds all it says.
///
/// `{"app":"NAME","hold":{"number":…,"since":"…","version":"…"}}` sets a
/// hold, `{"app":"NAME","hold":null}` lifts it.
package struct HoldLogRecord: Sendable, Equatable, Encodable {
    package var app: String
    package var hold: Hold?

    package init(app: String, hold: Hold?) {
        self.app = app
        self.hold = hold
    }

    private enum CodingKeys: String, CodingKey {
        case app, hold
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        // A lift is said, not left out: a line without its hold is damage.
        try container.encode(hold, forKey: .hold)
    }

    /// The line, ending in its newline.
    package func line(_ encoder: JSONEncoder) -> [UInt8] {
        // A name and a version are strings, a time a date: nothing here can fail to encode.
        var bytes = (try? encoder.encode(self)).map(Array.init) ?? []
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

extension DaemonState {
    /// What replaying a holds log did.
    package struct HoldLogReplay: Sendable, Equatable {
        /// Lines applied.
        package var applied = 0
        /// Lines that could not be read, each dropped alone, and a last
        /// line cut short by a crash; in words.
        package var notes: [String] = []
        /// Holds of apps no longer configured dropped past
        /// `maximumKeptHolds` once the log's were added.
        package var holdsDropped = 0
    }

    /// Applies the log `bytes` over this state (read from `state.json`),
    /// line by line in order: each sets or lifts one app's hold, as the
    /// `Hold` or `Unhold` call that wrote it did. A line is read as the
    /// state file's hold is (`apps.NAME.hold`, with its ranges), and a
    /// line that cannot be read is dropped alone and said. Replaying a
    /// line the state file already holds changes nothing, so a crash
    /// between the state's write and the log's removal loses nothing.
    ///
    /// | the line                             | result                                  |
    /// |--------------------------------------|-----------------------------------------|
    /// | a hold of a configured app           | its record's hold set (a record made)   |
    /// | a hold of an app no longer configured| kept as its hold alone, newest 1,000    |
    /// | `"hold":null`                        | the hold lifted; of an app no longer configured, the record goes |
    /// | not JSON, no `app`, a bad hold       | dropped, said with its line number      |
    /// | the last, without its newline        | dropped: a crash cut it short           |
    package mutating func replay(holdLog bytes: [UInt8], decoder: JSONDecoder, bounds: ReadBounds?) -> HoldLogReplay {
        var replay = HoldLogReplay()
        // The holds of apps no longer configured are gathered small, as
        // the state file's are: 100,000 such lines, each an app's record,
        // took 140 MiB before the newest 1,000 were kept.
        var bare = BareHolds()
        if let bounds {
            for (name, app) in apps where !bounds.configured.contains(name) { bare.add(name, app, hadMore: false) }
        }
        var start = 0
        var number = 0
        var dropped = 0
        func drop(_ line: String) {
            if replay.notes.count < Self.maximumSalvageLines { replay.notes.append(line) } else { dropped += 1 }
        }
        while start < bytes.count {
            number += 1
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                drop("holds.jsonl line \(number): cut short (\(bytes.count - start) bytes without an end, written as the daemon stopped); dropped")
                break
            }
            defer { start = end + 1 }
            guard end > start else { continue }
            let (record, notes) = Self.logRecord(bytes, start..<end, decoder: decoder, bounds: bounds)
            for line in notes { drop("holds.jsonl line \(number): \(line)") }
            guard let record else { continue }
            replay.applied += 1
            if let bounds, !bounds.configured.contains(record.app) {
                bare.add(record.app, record.hold.map { AppState(hold: $0) } ?? AppState(), hadMore: false)
            } else {
                apply(record)
            }
        }
        if dropped > 0 { replay.notes.append("holds.jsonl: and \(dropped) more lines dropped") }
        if let bounds {
            let (kept, gone) = bare.kept()
            for name in apps.keys.filter({ !bounds.configured.contains($0) }) { apps[name] = nil }
            for entry in kept { apps[entry.name] = AppState(hold: entry.hold) }
            replay.holdsDropped = gone
        }
        return replay
    }

    /// A line of a configured app (or any, read without bounds): a lift
    /// keeps the rest of its record, and a record left with nothing goes.
    private mutating func apply(_ record: HoldLogRecord) {
        guard let hold = record.hold else {
            apps[record.app]?.hold = nil
            if apps[record.app] == AppState() { apps[record.app] = nil }
            return
        }
        var app = apps[record.app] ?? AppState()
        app.hold = hold
        apps[record.app] = app
    }

    /// One line, `place` in `bytes`: nil when it cannot be read, and what
    /// was wrong with it, in the words of the state file's read (a number
    /// out of range is set back and the hold kept, as there).
    private static func logRecord(
        _ bytes: [UInt8], _ place: Range<Int>, decoder: JSONDecoder, bounds: ReadBounds?
    ) -> (record: HoldLogRecord?, notes: [String]) {
        var name: String?
        var holdText: Range<Int>?
        do {
            var problem: String?
            try JSONParser.forEachMember(of: bytes, in: place) { key, value in
                switch key {
                case "app":
                    guard case let .string(text)? = try? JSONParser.parse(bytes, in: value) else {
                        problem = "its app is not a string"
                        return
                    }
                    name = text
                case "hold": holdText = value
                default: problem = "it has a key \"\(DisplayText.escaped(key, limit: 40))\" no hold line has"
                }
            }
            if let problem { return (nil, [problem + "; dropped"]) }
        } catch {
            return (nil, ["not a hold line (\(error.message)); dropped"])
        }
        guard let name, !name.isEmpty else { return (nil, ["it names no app; dropped"]) }
        guard let holdText else { return (nil, ["it has no hold (null lifts one); dropped"]) }
        if bytes[holdText].elementsEqual("null".utf8) { return (HoldLogRecord(app: name, hold: nil), []) }
        // The hold is read as the state file's is: the same ranges, the same words.
        let text = Array(#"{"consecutiveFailures":0,"messages":{},"hold":"#.utf8) + bytes[holdText] + [UInt8(ascii: "}")]
        let shownName = DisplayText.escaped(name, limit: 80)
        var notes = ReadNotes()
        let app = record(name, text, text.indices, bounds: bounds, decoder: decoder, notes: &notes)?
            .bounded(responseBytes: bounds?.responseBytes ?? .max, shownName: shownName, notes: &notes)
        let said = notes.lines.map { $0.hasPrefix("state.json: ") ? String($0.dropFirst("state.json: ".count)) : $0 }
        guard let hold = app?.hold else { return (nil, said.isEmpty ? ["apps.\(shownName).hold: not a hold; dropped"] : said) }
        return (HoldLogRecord(app: name, hold: hold), said)
    }
}
