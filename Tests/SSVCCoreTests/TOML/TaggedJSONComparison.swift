import Foundation

/// Compares two trees of toml-test's tagged JSON the way toml-test means to:
/// tables by keys, arrays element by element, integers by value, floats by
/// value with every NaN equal, and dates and times by what they denote.
/// (toml-test 1.2's own `cmpAsDatetimes` reads the expected text twice and
/// so passes any date of the right type; this compares the parser's.)
enum TaggedJSONComparison {
    /// Nil when equal, else where and how they differ.
    static func difference(_ want: Any, _ have: Any, at path: String = "") -> String? {
        if let want = want as? [String: Any] {
            guard let have = have as? [String: Any] else { return "\(path): expected a table or value, found \(have)" }
            if isScalar(want) {
                guard isScalar(have) else { return "\(path): expected a value, found a table" }
                return scalarDifference(want, have, at: path)
            }
            guard !isScalar(have) else { return "\(path): expected a table, found a value" }
            guard Set(want.keys) == Set(have.keys) else {
                return "\(path): keys differ: expected \(want.keys.sorted()), found \(have.keys.sorted())"
            }
            for key in want.keys.sorted() {
                if let difference = difference(want[key]!, have[key]!, at: path + "." + key) { return difference }
            }
            return nil
        }
        if let want = want as? [Any] {
            guard let have = have as? [Any] else { return "\(path): expected an array, found \(have)" }
            guard want.count == have.count else { return "\(path): expected \(want.count) elements, found \(have.count)" }
            for (index, pair) in zip(want, have).enumerated() {
                if let difference = difference(pair.0, pair.1, at: path + "[\(index)]") { return difference }
            }
            return nil
        }
        return "\(path): unexpected JSON \(want)"
    }

    private static func isScalar(_ object: [String: Any]) -> Bool {
        object.count == 2 && object["type"] is String && object["value"] != nil
    }

    private static func scalarDifference(_ want: [String: Any], _ have: [String: Any], at path: String) -> String? {
        let wantType = want["type"] as? String ?? ""
        let haveType = have["type"] as? String ?? ""
        guard wantType == haveType else { return "\(path): expected type \(wantType), found \(haveType)" }
        guard let wantText = want["value"] as? String, let haveText = have["value"] as? String else {
            return "\(path): values must be strings"
        }
        let equal: Bool
        switch wantType {
        case "integer":
            equal = Int(wantText) != nil && Int(wantText) == Int(haveText)
        case "float":
            equal = floatsEqual(wantText, haveText)
        case "datetime", "datetime-local", "date-local", "time-local":
            let wantKey = dateKey(wantType, wantText)
            equal = wantKey != nil && wantKey == dateKey(haveType, haveText)
        default:
            equal = wantText == haveText
        }
        return equal ? nil : "\(path): expected \(wantType) \(wantText), found \(haveText)"
    }

    static func floatsEqual(_ want: String, _ have: String) -> Bool {
        if want.hasSuffix("nan") || have.hasSuffix("nan") {
            return want.hasSuffix("nan") && have.hasSuffix("nan")
        }
        guard let wantValue = Double(want), let haveValue = Double(have) else { return false }
        return wantValue == haveValue
    }

    /// What a date or time denotes, as comparable text: an offset date-time
    /// becomes its UTC instant (seconds since 1970 and the fraction without
    /// trailing zeros); local forms keep their fields, `T` for the separator.
    static func dateKey(_ type: String, _ text: String) -> String? {
        let normal = text.uppercased().replacingOccurrences(of: " ", with: "T")
        let scalars = Array(normal.unicodeScalars)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= scalars.count else { return nil }
            return Int(String(String.UnicodeScalarView(scalars[start..<start + count])))
        }
        func fractionAndRest(from start: Int) -> (fraction: String, rest: Int) {
            guard start < scalars.count, scalars[start] == "." else { return ("", start) }
            var end = start + 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            var digits = String(String.UnicodeScalarView(scalars[start + 1..<end]))
            while digits.hasSuffix("0") { digits.removeLast() }
            return (digits, end)
        }
        switch type {
        case "date-local":
            return scalars.count == 10 ? normal : nil
        case "time-local":
            let (fraction, rest) = fractionAndRest(from: 8)
            return rest == scalars.count ? String(normal.prefix(8)) + "." + fraction : nil
        case "datetime-local":
            let (fraction, rest) = fractionAndRest(from: 19)
            return rest == scalars.count ? String(normal.prefix(19)) + "." + fraction : nil
        case "datetime":
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2) else { return nil }
            let (fraction, rest) = fractionAndRest(from: 19)
            var offset = 0
            if rest < scalars.count, scalars[rest] != "Z" {
                guard let hours = number(rest + 1, 2), let minutes = number(rest + 4, 2) else { return nil }
                offset = (hours * 60 + minutes) * 60 * (scalars[rest] == "-" ? -1 : 1)
            }
            let seconds = daysSince1970(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
            return "\(seconds).\(fraction)"
        default:
            return nil
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date.
    private static func daysSince1970(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
