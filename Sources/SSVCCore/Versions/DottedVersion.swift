/// The `dotted` scheme: parts split on `.`, numeric parts by value, other
/// parts byte-wise, missing or empty parts as `0`.
enum DottedVersion {
    static func compare(_ lhs: String, _ rhs: String) -> VersionComparison {
        let a = parts(lhs)
        let b = parts(rhs)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : zero
            let y = index < b.count ? b[index] : zero
            let order: VersionComparison
            if x.allSatisfy(DigitRun.isDigit) && y.allSatisfy(DigitRun.isDigit) {
                order = DigitRun.compare(x, y)
            } else {
                order = x.lexicographicallyPrecedes(y) ? .older : (x == y ? .same : .newer)
            }
            if order != .same { return order }
        }
        return .same
    }

    private static let zero: ArraySlice<UInt8> = [UInt8(ascii: "0")]

    private static func parts(_ version: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(version.utf8).trimmingASCIIWhitespace()
        return bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            .map { $0.isEmpty ? zero : $0 }
    }
}
