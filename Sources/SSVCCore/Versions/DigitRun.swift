/// Comparison of runs of ASCII digits by numeric value, at any length: version
/// parts such as `20240101123045` overflow no integer type this way.
enum DigitRun {
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func compare<A: Collection<UInt8>, B: Collection<UInt8>>(_ lhs: A, _ rhs: B) -> VersionComparison {
        let a = lhs.drop { $0 == UInt8(ascii: "0") }
        let b = rhs.drop { $0 == UInt8(ascii: "0") }
        if a.count != b.count { return VersionComparison(a.count, b.count) }
        for (x, y) in zip(a, b) where x != y {
            return VersionComparison(x, y)
        }
        return .same
    }
}
