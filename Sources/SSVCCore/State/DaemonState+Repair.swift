extension DaemonState {
    /// Sets back each integer field of one app's record that is out of its
    /// type's range (a hand edit, a damaged disk): a count to its largest
    /// value or 0, a version number removed. So one bad number costs one
    /// field, not the app's state. Each repair is told to `notes`, under
    /// `path` (`apps.NAME`); true when anything was repaired.
    static func repairNumbers(in app: inout [(key: String, value: JSONValue)], path name: String, notes: inout ReadNotes) -> Bool {
        var repaired = false
        func check(_ value: inout JSONValue?, _ path: String, fits: (String) -> Bool, reset: (String) -> JSONValue?) {
            guard let current = value, case let .number(text) = current, !fits(text) else { return }
            value = reset(text)
            repaired = true
            notes.repaired("state.json: \(path) out of range (\(current.summary)); \(value.map { "set to \($0.summary)" } ?? "removed")")
        }
        // A whole number past the largest saturates; a negative or
        // fractional one is no count at all and starts again at 0 (2.5
        // used to read as the largest count: issue 52).
        let whole = { (text: String) in !text.hasPrefix("-") && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        let count = { (text: String) -> JSONValue? in .number(whole(text) ? String(Int.max) : "0") }
        let unsigned = { (text: String) in UInt64(text) != nil }
        app.update("consecutiveFailures") { check(&$0, "\(name).consecutiveFailures", fits: { Int($0).map { $0 >= 0 } ?? false }, reset: count) }
        app.update("currentVersionNumber") { check(&$0, "\(name).currentVersionNumber", fits: unsigned) { _ in nil } }
        // A hold's number, the issue's own example: removed, the hold kept.
        app.update("hold") { hold in
            guard case var .object(members)? = hold else { return }
            members.update("number") { check(&$0, "\(name).hold.number", fits: unsigned) { _ in nil } }
            hold = .object(members)
        }
        app.update("decision") { decision in
            guard case var .object(members)? = decision else { return }
            for key in ["latestVersionNumber", "minimumSupportedVersionNumber"] {
                members.update(key) { check(&$0, "\(name).decision.\(key)", fits: unsigned) { _ in nil } }
            }
            decision = .object(members)
        }
        app.update("messages") { messages in
            guard case var .object(records)? = messages else { return }
            for record in records.indices {
                guard case var .object(fields) = records[record].value else { continue }
                fields.update("count") {
                    check(&$0, "\(name).messages.\(records[record].key).count", fits: unsigned) { text in
                        .number(whole(text) ? String(UInt64.max) : "0")
                    }
                }
                records[record].value = .object(fields)
            }
            messages = .object(records)
        }
        return repaired
    }
}

extension [(key: String, value: JSONValue)] {
    /// Changes the member named `key` in place (nil: absent; set nil to remove it).
    fileprivate mutating func update(_ key: String, _ change: (inout JSONValue?) -> Void) {
        let index = firstIndex { $0.key == key }
        var value = index.map { self[$0].value }
        change(&value)
        switch (index, value) {
        case let (index?, value?): self[index].value = value
        case let (index?, nil): remove(at: index)
        case let (nil, value?): append((key, value))
        case (nil, nil): break
        }
    }
}
