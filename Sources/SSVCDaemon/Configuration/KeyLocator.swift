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

    /// `text`'s lines, without the blanks that begin them.
    private static func trimmedLines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingPrefix { $0 == " " || $0 == "\t" } }
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
        let compact = line.filter { $0 != " " && $0 != "\t" }
        return ["[\(name)]", "[[\(name)]]", "[\(name).", "[\"\(name)\"]", "[[\"\(name)\"]]"].contains { compact.hasPrefix($0) }
    }

    private static func isDaemonHeader(_ line: Substring) -> Bool {
        line.filter { $0 != " " && $0 != "\t" }.hasPrefix("[daemon]")
    }

    private static func isAppHeader(_ line: Substring) -> Bool {
        let compact = line.filter { $0 != " " && $0 != "\t" }
        return compact.hasPrefix("[[app]]")
    }

    /// The known key closest to `unknown` (at most two edits, and fewer
    /// than half its length), for "did you mean …?".
    static func suggestion(for unknown: String, among known: [String]) -> String? {
        // Within two edits the lengths differ by two at most: only such
        // keys are compared, so a megabyte-long key costs one count.
        let length = unknown.count
        let scored = known.filter { abs($0.count - length) <= 2 }.map { ($0, distance(unknown.lowercased(), $0)) }
            .filter { $0.1 <= 2 && $0.1 * 2 < max(length, 2) }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein's edit distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let (x, y) = (Array(a), Array(b))
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
