/// Finds the line a configuration key is set on, for error messages:
/// the TOML parser keeps no source positions. A plain reading of the
/// text, good for the files operators write (one key a line); nil when the
/// key is not found that way.
enum KeyLocator {
    /// The 1-based line setting `key` (`app.url`, `properties.x-a`,
    /// `public-keys[1]`: its first part counts) at the top of `text`, or,
    /// with `appTable`, inside that `[[app]]` table (0 is the first).
    static func line(of key: String?, appTable: Int?, in text: String) -> Int? {
        let lines = trimmedLines(text)
        var range = 0..<lines.count
        if let appTable {
            let headers = lines.indices.filter { isAppHeader(lines[$0]) }
            guard appTable < headers.count else { return nil }
            let start = headers[appTable]
            let end = lines.indices.first { $0 > start && lines[$0].hasPrefix("[") } ?? lines.count
            range = start..<end
        }
        guard var name = key?.split(separator: ".").first.map(String.init) else { return range.isEmpty ? nil : range.lowerBound + 1 }
        if name == "app", let next = key?.split(separator: ".").dropFirst().first { name = String(next) }
        if let bracket = name.firstIndex(of: "[") { name = String(name[..<bracket]) }
        if let found = setting(name, in: lines, range) { return found }
        // A table of that name: `[[app]]` in an app file, `[deamon]` (issue 51).
        if let header = range.first(where: { isHeader(lines[$0], named: name) }) { return header + 1 }
        return appTable.map { _ in range.lowerBound + 1 }
    }

    /// The 1-based line setting `key` (`daemon.timeout-seconds`) inside the
    /// `[daemon]` table of `text`, or that table's header line when the key
    /// is not found there; nil without such a table.
    static func daemonLine(of key: String?, in text: String) -> Int? {
        let lines = trimmedLines(text)
        guard let start = lines.indices.first(where: { isDaemonHeader(lines[$0]) }) else { return nil }
        let end = lines.indices.first { $0 > start && lines[$0].hasPrefix("[") } ?? lines.count
        guard let name = key?.split(separator: ".").dropFirst().first.map({ String($0.prefix { $0 != "[" }) }) else { return start + 1 }
        return setting(name, in: lines, start + 1..<end) ?? start + 1
    }

    /// `text`'s lines, without the blanks that begin them nor the byte
    /// order mark the parser passes over. TOML ends a line with LF or CRLF,
    /// and to Swift CRLF is one Character.
    private static func trimmedLines(_ text: String) -> [Substring] {
        let body = text.unicodeScalars.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
        return body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map { $0.trimmingPrefix { $0 == " " || $0 == "\t" } }
    }

    /// The 1-based line in `range` that sets `name` (bare or quoted, with
    /// `=` or as the start of a dotted key); nil when none does.
    private static func setting(_ name: String, in lines: [Substring], _ range: Range<Int>) -> Int? {
        for index in range where lines[index].hasPrefix(name) || lines[index].hasPrefix("\"\(name)\"") {
            let rest = lines[index].dropFirst(lines[index].hasPrefix("\"") ? name.count + 2 : name.count)
                .trimmingPrefix { $0 == " " || $0 == "\t" }
            if rest.hasPrefix("=") || rest.hasPrefix(".") { return index + 1 }
        }
        return nil
    }

    /// `[name]`, `[[name]]`, `[name.sub]` or `["name"]`, blanks aside.
    private static func isHeader(_ line: Substring, named name: String) -> Bool {
        ["[\(name)]", "[[\(name)]]", "[\(name).", "[\"\(name)\"]", "[[\"\(name)\"]]"].contains { startsCompacted(line, with: $0) }
    }

    private static func isDaemonHeader(_ line: Substring) -> Bool {
        startsCompacted(line, with: "[daemon]")
    }

    private static func isAppHeader(_ line: Substring) -> Bool {
        startsCompacted(line, with: "[[app]]")
    }

    /// Whether `line` without its blanks starts with `prefix`: walked over
    /// the bytes, with no copy of the line (every line of the file is
    /// asked, for every error).
    private static func startsCompacted(_ line: Substring, with prefix: String) -> Bool {
        var wanted = prefix.utf8.makeIterator()
        guard var next = wanted.next() else { return true }
        for byte in line.utf8 where byte != 0x20 && byte != 0x09 {
            guard byte == next else { return false }
            guard let following = wanted.next() else { return true }
            next = following
        }
        return false
    }

    /// The known key closest to `unknown` (at most two edits, and fewer
    /// than half its length), for "did you mean …?". Counted in Unicode
    /// scalars: the known keys are ASCII.
    static func suggestion(for unknown: String, among known: [String]) -> String? {
        // Within two edits the lengths differ by two at most: only such
        // keys are compared, so a megabyte-long key costs one count.
        let length = unknown.unicodeScalars.count
        let near = known.filter { abs($0.unicodeScalars.count - length) <= 2 }
        guard !near.isEmpty else { return nil }
        let typed = Array(unknown.lowercased().unicodeScalars)
        var best: (key: String, edits: Int)?
        for key in near {
            let edits = distance(typed, Array(key.unicodeScalars), atMost: 2)
            if edits <= 2, edits * 2 < max(length, 2), edits < best?.edits ?? .max { best = (key, edits) }
        }
        return best?.key
    }

    /// Levenshtein's edit distance.
    static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars), atMost: .max)
    }

    /// Levenshtein's edit distance, or `limit + 1` as soon as it must be
    /// more than `limit`: two rows, reused.
    private static func distance(_ x: [Unicode.Scalar], _ y: [Unicode.Scalar], atMost limit: Int) -> Int {
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var previous = Array(0...y.count)
        var current = previous
        for i in 1...x.count {
            current[0] = i
            var smallest = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                smallest = min(smallest, current[j])
            }
            // A row's smallest entry never falls further down.
            if smallest > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
