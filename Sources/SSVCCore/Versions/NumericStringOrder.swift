/// The `nsnumeric` scheme: Foundation's `compare(_:options: .numeric)`
/// without Foundation (whose ICU data would cost the daemon megabytes).
///
/// Strings are walked in UTF-16 code units, as NSString compares them; a run
/// of ASCII digits on both sides compares by value (leading zeros ignored, so
/// `a01 == a1`), everything else by code unit, and a string that is a prefix
/// of the other comes first (`1 < 1.0`). The test suite holds it to
/// Foundation's own answer on a generated corpus.
enum NumericStringOrder {
    static func compare(_ lhs: String, _ rhs: String) -> VersionComparison {
        let a = Array(lhs.utf16)
        let b = Array(rhs.utf16)
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let runA = run(a, from: i)
                let runB = run(b, from: j)
                let order = DigitRun.compare(runA.lazy.map { UInt8($0) }, runB.lazy.map { UInt8($0) })
                if order != .same { return order }
                i += runA.count
                j += runB.count
            } else {
                if a[i] != b[j] { return VersionComparison(a[i], b[j]) }
                i += 1
                j += 1
            }
        }
        return VersionComparison(a.count - i, b.count - j)
    }

    private static func isDigit(_ unit: UInt16) -> Bool {
        unit >= 0x30 && unit <= 0x39
    }

    private static func run(_ units: [UInt16], from start: Int) -> ArraySlice<UInt16> {
        units[start...].prefix(while: isDigit)
    }
}
