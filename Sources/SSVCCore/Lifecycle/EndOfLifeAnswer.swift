import FoundationEssentials

/// An answer of endoflife.date's API v1 (SPEC §15): a product answer
/// (`result.releases`) or a release answer (`result` is one release). A
/// release that cannot be read is skipped and named; the answer as a whole
/// is refused only when it is not one of the two.
package struct EndOfLifeAnswer: Sendable, Equatable {
    /// The releases read, in the answer's order.
    package var releases: [EndOfLifeRelease]
    /// A release answer: the one release its URL named.
    package var isRelease: Bool
    /// The releases skipped, each with where and why (at most `shownProblems`).
    package var problems: [String]
    package var skipped: Int

    /// The most bytes of an answer: endoflife.date's largest product
    /// answers are tens of kilobytes; it is parsed into a tree.
    package static let maximumBytes = 2 << 20
    /// The most releases of one product (the largest have a few hundred).
    package static let maximumReleases = 4096
    /// The most bytes of a release's name or `lifecycle-release`.
    package static let maximumNameBytes = 256
    static let shownProblems = 4

    package static func read(_ bytes: [UInt8]) throws(DocumentError) -> EndOfLifeAnswer {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw DocumentError(path: "", problem: error.description)
        }
        let answer = JSONField(root: root)
        try answer.requireObject()
        if let version = answer.member("schema_version") {
            let text = try version.string()
            guard text.hasPrefix("1.") || text == "1" else {
                throw version.invalid("'\(DisplayText.escaped(text, limit: 40))' is not a version of API v1's schema")
            }
        }
        guard let result = answer.member("result") else { throw answer.invalid("no result: not an answer of endoflife.date's API v1") }
        try result.requireObject()
        guard let list = result.member("releases") else {
            return EndOfLifeAnswer(releases: [try release(result)], isRelease: true, problems: [], skipped: 0)
        }
        let elements = try list.elements()
        guard elements.count <= maximumReleases else {
            throw list.invalid("\(elements.count) releases, more than \(maximumReleases)")
        }
        var read = EndOfLifeAnswer(releases: [], isRelease: false, problems: [], skipped: 0)
        for element in elements {
            do {
                read.releases.append(try release(element))
            } catch {
                read.skipped += 1
                if read.problems.count < shownProblems { read.problems.append(error.description) }
            }
        }
        return read
    }

    /// One `ProductRelease`.
    static func release(_ field: JSONField) throws(DocumentError) -> EndOfLifeRelease {
        try field.requireObject()
        guard let nameField = field.member("name") else { throw field.invalid("no name") }
        let name = try nameField.string()
        if let problem = nameProblem(name) { throw nameField.invalid(problem) }
        let label = try field.member("label").map { (label) throws(DocumentError) in DisplayText.cut(try label.string(), bytes: maximumNameBytes) }
        // JSON's null is "not given" (`member`): a release whose end of life
        // is neither dated nor flagged says nothing of it.
        guard field.member("eolFrom") != nil || field.member("isEol") != nil else {
            throw field.invalid("neither eolFrom nor isEol")
        }
        let endOfLife = try phase(field, date: "eolFrom", flag: "isEol")
        // Absent (or null) keys: the product has no such phase.
        let active = field.member("eoasFrom") != nil || field.member("isEoas") != nil ? try phase(field, date: "eoasFrom", flag: "isEoas") : nil
        let extended = field.member("eoesFrom") != nil || field.member("isEoes") != nil ? try phase(field, date: "eoesFrom", flag: "isEoes") : nil
        var latest: String?
        if let latestField = field.member("latest") {
            try latestField.requireObject()
            if let latestName = latestField.member("name") {
                let text = try latestName.versionString()
                latest = text.isEmpty ? nil : text
            }
        }
        return EndOfLifeRelease(name: name, label: label, activeSupport: active, endOfLife: endOfLife, extendedSupport: extended, latest: latest)
    }

    private static func phase(_ field: JSONField, date: String, flag: String) throws(DocumentError) -> EndOfLifeRelease.Phase {
        let day = try field.member(date).map { (value) throws(DocumentError) in try Self.day(value) }
        let set = try field.member(flag).map { (value) throws(DocumentError) -> Bool in
            guard case let .bool(flag) = value.value else { throw value.mismatch("true, false or null") }
            return flag
        }
        return EndOfLifeRelease.Phase(day: day, flag: set)
    }

    /// A plain day, `YYYY-MM-DD`, as 00:00 UTC of it.
    static func day(_ field: JSONField) throws(DocumentError) -> Date {
        let text = try field.string()
        guard let day = parseDay(text) else {
            throw field.invalid("'\(DisplayText.escaped(text, limit: 40))' is not a date (YYYY-MM-DD)")
        }
        return day
    }

    /// `YYYY-MM-DD` (years 0000 to 9999) as 00:00 UTC of it; nil otherwise.
    package static func parseDay(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard DigitRun.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        return CivilTime.date(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD` of `day`'s UTC date.
    package static func format(_ day: Date) -> String {
        let (year, month, dayOfMonth) = CivilTime.components(of: day)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(dayOfMonth, 2))"
    }

    /// Why `name` cannot be a release's name: empty, longer than
    /// `maximumNameBytes`, or holding a control or formatting character;
    /// nil when it can.
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "an empty release name" }
        if name.utf8.count > maximumNameBytes { return "a release name of \(name.utf8.count) bytes, more than \(maximumNameBytes)" }
        // The name itself is not repeated: this text reaches notes that are escaped where shown.
        if let bad = name.unicodeScalars.first(where: { DisplayText.isControl($0) || DisplayText.isFormat($0) }) {
            let hex = String(bad.value, radix: 16, uppercase: true)
            return "a release name holding U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex), a control or formatting character"
        }
        return nil
    }
}
