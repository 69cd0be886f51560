extension DaemonState {
    /// The state file with each integer field that is out of its type's
    /// range (a hand edit, a damaged disk) set back: a count to its
    /// largest value or 0, a version number removed. So one bad number
    /// costs one field, not every app's state. The file as it is when it
    /// is not JSON at all (decoding then says why).
    package static func repairingNumbers(_ bytes: [UInt8]) -> (bytes: [UInt8], repairs: [String]) {
        guard case var .object(root) = (try? JSONParser.parse(bytes)) ?? .null,
              let appsIndex = root.firstIndex(where: { $0.key == "apps" }), case var .object(apps) = root[appsIndex].value
        else { return (bytes, []) }
        var repairs: [String] = []
        func check(_ value: inout JSONValue?, _ path: String, fits: (String) -> Bool, reset: (String) -> JSONValue?) {
            guard let current = value, case let .number(text) = current, !fits(text) else { return }
            value = reset(text)
            repairs.append("state.json: \(path) out of range (\(current.summary)); \(value.map { "set to \($0.summary)" } ?? "removed")")
        }
        // A whole number past the largest saturates; a negative or
        // fractional one is no count at all and starts again at 0 (2.5
        // used to read as the largest count: issue 52).
        let whole = { (text: String) in !text.hasPrefix("-") && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        let count = { (text: String) -> JSONValue? in .number(whole(text) ? String(Int.max) : "0") }
        let unsigned = { (text: String) in UInt64(text) != nil }
        for index in apps.indices {
            guard case var .object(app) = apps[index].value else { continue }
            let name = "apps.\(apps[index].key)"
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
            apps[index].value = .object(app)
        }
        guard !repairs.isEmpty else { return (bytes, []) }
        // Said at most 16 times, the rest counted: 100,000 bad holds wrote 100,000 warnings.
        if repairs.count > maximumSalvageLines {
            let more = repairs.count - maximumSalvageLines
            repairs = Array(repairs.prefix(maximumSalvageLines)) + ["state.json: and \(more) more numbers out of range, each reset"]
        }
        root[appsIndex].value = .object(apps)
        return (Array(JSONValue.object(root).canonicalText.utf8), repairs)
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
