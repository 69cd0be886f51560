import FoundationEssentials

extension DaemonState {
    /// The most fields said dropped one by one; past it, one line counts the rest.
    package static let maximumSalvageLines = 16

    /// One app's record that would not decode, read field by field
    /// (issue 52): a field that cannot be read is dropped alone, then an
    /// object that lacks a field it needs, then, only when nothing else
    /// helps, the record. Each told to `notes` with its path, in words,
    /// never the decoder's text. `shownName` is the app's name escaped.
    static func salvaged(_ value: JSONValue, shownName: String, decoder: JSONDecoder, notes: inout ReadNotes) -> AppState? {
        var record = value
        // Each try removes one thing; a record past the tries goes whole.
        for _ in 0..<Self.maximumSalvageTries {
            do {
                return try decoder.decode(AppState.self, from: Data(record.canonicalText.utf8))
            } catch let error as DecodingError {
                // The decoder names no path for some errors (a negative
                // version number): then the deepest member whose removal
                // lets the record be read is the one.
                guard let said = record.removing(error) ?? record.removingCulprit(decoder: decoder) else {
                    notes.dropped("apps.\(shownName): dropped: \(record.isObject ? "its fields could not be read" : "\(record.summary) is not an app's record")")
                    return nil
                }
                notes.dropped("apps.\(shownName)\(said.path.isEmpty ? "" : ".")\(said.path): \(said.problem)")
            } catch {
                notes.dropped("apps.\(shownName): dropped: its fields could not be read")
                return nil
            }
        }
        notes.dropped("apps.\(shownName): dropped: more than \(Self.maximumSalvageTries) of its fields could not be read")
        return nil
    }

    /// The most fields one app's record may lose before the record goes.
    static let maximumSalvageTries = 64
    /// The most records mended field by field in one file.
    package static let maximumSalvagedRecords = 1_000
}

extension JSONValue {
    fileprivate var isObject: Bool {
        if case .object = self { true } else { false }
    }

    /// What an app's record falls back to when it lacks a field it needs.
    /// A function, not a stored dictionary: LeakSanitizer takes a global
    /// holding indirect enum payloads for a leak.
    private static func appDefault(_ key: String) -> JSONValue? {
        switch key {
        case "consecutiveFailures": .number("0")
        case "messages": .object([])
        default: nil
        }
    }

    /// Removes what `error` says cannot be read, and says what and why;
    /// nil when only the whole record can go.
    fileprivate mutating func removing(_ error: DecodingError) -> (path: String, problem: String)? {
        switch error {
        case let .keyNotFound(key, context):
            let path = context.codingPath.map(\.stringValue)
            if path.isEmpty {
                guard let fallback = Self.appDefault(key.stringValue), case var .object(members) = self else { return nil }
                members.append((key.stringValue, fallback))
                self = .object(members)
                return (key.stringValue, "missing; set to \(fallback.canonicalText)")
            }
            guard remove(at: context.codingPath[...]) else { return nil }
            return (path.joined(separator: "."), "dropped: it has no \(key.stringValue)")
        case let .typeMismatch(type, context), let .valueNotFound(type, context):
            guard let found = value(at: context.codingPath[...]), remove(at: context.codingPath[...]) else { return nil }
            return (context.codingPath.map(\.stringValue).joined(separator: "."), "\(found.summary) is not \(Self.words(for: type, key: context.codingPath.last))")
        case let .dataCorrupted(context):
            guard let found = value(at: context.codingPath[...]), remove(at: context.codingPath[...]) else { return nil }
            let key = context.codingPath.last?.stringValue ?? ""
            let what: String
            if key.lowercased().hasSuffix("number") {
                what = "a version number"
            } else if case .string = found {
                what = "a date or a value of its kind"
            } else {
                what = "a value of its kind"
            }
            return (context.codingPath.map(\.stringValue).joined(separator: "."), "\(found.summary) is not \(what)")
        @unknown default:
            return nil
        }
    }

    /// Finds, by trying, the deepest member whose removal lets the record
    /// decode as an app's, or gives an error that names its place (another
    /// bad member, mended next); removes it and says so; nil when none
    /// does. Only for a record that would otherwise go whole: each try
    /// decodes the record once.
    fileprivate mutating func removingCulprit(decoder: JSONDecoder) -> (path: String, problem: String)? {
        func decodes(_ value: JSONValue) -> Bool {
            do {
                _ = try decoder.decode(AppState.self, from: Data(value.canonicalText.utf8))
                return true
            } catch let error as DecodingError {
                switch error {
                case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
                    return !context.codingPath.isEmpty
                case .keyNotFound:
                    // A member it needs was the one removed: not the culprit.
                    return false
                @unknown default:
                    return false
                }
            } catch {
                return false
            }
        }
        var path: [String] = []
        var found = false
        while case let .object(members)? = stringValue(at: path) {
            guard let next = members.map(\.key).sorted().first(where: { key in
                var trial = self
                return trial.removeString(at: path + [key]) && decodes(trial)
            }) else { break }
            path.append(next)
            found = true
        }
        guard found, let culprit = stringValue(at: path) else { return nil }
        _ = removeString(at: path)
        let key = path.last ?? ""
        let what = key.lowercased().hasSuffix("number") ? "a version number" : "what the field holds"
        return (path.joined(separator: "."), "\(culprit.summary) is not \(what)")
    }

    /// A path of member names, as the decoder's path is walked.
    private struct Member: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private func stringValue(at path: [String]) -> JSONValue? {
        value(at: path.map { Member(stringValue: $0) as any CodingKey }[...])
    }

    private mutating func removeString(at path: [String]) -> Bool {
        remove(at: path.map { Member(stringValue: $0) as any CodingKey }[...])
    }

    /// "a whole number", "a date", …: the decoder's type in words.
    private static func words(for type: Any.Type, key: (any CodingKey)?) -> String {
        if key?.stringValue.lowercased().hasSuffix("number") == true { return "a version number" }
        switch type {
        case is Int.Type, is Int64.Type, is UInt64.Type, is UInt32.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Date.Type: return "a date"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "what the field holds"
        }
    }

    private func value(at path: ArraySlice<any CodingKey>) -> JSONValue? {
        guard let first = path.first else { return self }
        switch self {
        case let .object(members):
            return members.last { $0.key == first.stringValue }?.value.value(at: path.dropFirst())
        case let .array(elements):
            guard let index = first.intValue, elements.indices.contains(index) else { return nil }
            return elements[index].value(at: path.dropFirst())
        default:
            return nil
        }
    }

    /// Removes the value at `path` (non-empty); false when there is none.
    private mutating func remove(at path: ArraySlice<any CodingKey>) -> Bool {
        guard let first = path.first else { return false }
        switch self {
        case var .object(members):
            guard let index = members.lastIndex(where: { $0.key == first.stringValue }) else { return false }
            if path.count == 1 {
                members.removeAll { $0.key == first.stringValue }
            } else {
                guard members[index].value.remove(at: path.dropFirst()) else { return false }
            }
            self = .object(members)
            return true
        case var .array(elements):
            guard let index = first.intValue, elements.indices.contains(index) else { return false }
            if path.count == 1 {
                elements.remove(at: index)
            } else {
                guard elements[index].remove(at: path.dropFirst()) else { return false }
            }
            self = .array(elements)
            return true
        default:
            return false
        }
    }
}

extension DaemonState {
    /// Whether `time` lies in the years 0001 to 9999, as RFC 3339 writes them.
    static func writable(_ time: Date) -> Bool {
        (-62_135_596_800.0..<253_402_300_800.0).contains(time.timeIntervalSince1970)
    }

    /// The state held to what a write would keep (issue 52): a stored
    /// response past `responseBytes` (`max-response-bytes`) is dropped with
    /// its ETag (the app fetches its document whole), `seen` keeps its
    /// newest `AppState.seenKept`, an error its stored bound. What was cut,
    /// named, for the journal.
    package func bounded(responseBytes: Int) -> (state: DaemonState, cut: [String]) {
        var next = self
        var notes = ReadNotes()
        for (name, app) in apps {
            let bounded = app.bounded(responseBytes: responseBytes, shownName: DisplayText.escaped(name, limit: 80), notes: &notes)
            if bounded != app { next.apps[name] = bounded }
        }
        return (next, notes.lines)
    }
}

extension AppState {
    /// The app held to what a write would keep, as `DaemonState.bounded`
    /// says; each cut told to `notes`.
    func bounded(responseBytes: Int, shownName shown: String, notes: inout ReadNotes) -> AppState {
        var app = self
        if let response = app.response, response.utf8.count > responseBytes {
            notes.cut("state.json: apps.\(shown).response: \(response.utf8.count) bytes, past max-response-bytes (\(responseBytes)); dropped")
            app.response = nil
            app.etag = nil
        }
        if let seen = app.seen, seen.count > AppState.seenKept {
            notes.cut("state.json: apps.\(shown).seen: \(seen.count) versions, past \(AppState.seenKept); the newest kept")
            app.seen = Array(seen.sorted { $0.at < $1.at }.suffix(AppState.seenKept))
        }
        if let error = app.lastError, error.utf8.count > DisplayText.maximumStoredBytes {
            app.lastError = DisplayText.cut(error)
        }
        // Times in RFC 3339's years, 0001 to 9999, on read as on write
        // (a hold since 99999-01-01 was read, issue 52).
        let times: [(String, WritableKeyPath<AppState, Date?>)] = [
            ("firstCheck", \.firstCheck), ("lastCheck", \.lastCheck), ("lastSuccess", \.lastSuccess), ("lastFetch", \.lastFetch),
            ("retryNotBefore", \.retryNotBefore), ("newestSignatureTime", \.newestSignatureTime),
        ]
        for (field, path) in times {
            guard let time = app[keyPath: path], !DaemonState.writable(time) else { continue }
            notes.cut("state.json: apps.\(shown).\(field): \(time.timeIntervalSince1970) s since 1970 is past the years 0001-9999; dropped")
            app[keyPath: path] = nil
        }
        if let hold = app.hold, !DaemonState.writable(hold.since) {
            notes.cut("state.json: apps.\(shown).hold.since: past the years 0001-9999; the hold is dropped")
            app.hold = nil
        }
        return app
    }
}
