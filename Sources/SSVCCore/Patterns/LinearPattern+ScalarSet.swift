extension LinearPattern {
    /// A set of scalar values as sorted, disjoint, non-adjacent closed ranges.
    struct ScalarSet: Sendable {
        private(set) var ranges: [ClosedRange<UInt32>] = []

        init(_ raw: [ClosedRange<UInt32>]) {
            for range in raw.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = ranges.last, range.lowerBound <= last.upperBound + 1 {
                    ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                } else {
                    ranges.append(range)
                }
            }
        }

        func inverted() -> ScalarSet {
            var result: [ClosedRange<UInt32>] = []
            var next: UInt32 = 0
            for range in ranges {
                if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
                next = range.upperBound + 1
            }
            if next <= 0x10FFFF { result.append(next...0x10FFFF) }
            return ScalarSet(result)
        }

        func contains(_ value: UInt32) -> Bool {
            var low = 0, high = ranges.count
            while low < high {
                let mid = (low + high) / 2
                if ranges[mid].upperBound < value { low = mid + 1 }
                else if ranges[mid].lowerBound > value { high = mid }
                else { return true }
            }
            return false
        }

        static let digit = ScalarSet([0x30...0x39])
        static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
        static let space = ScalarSet([0x09...0x0D, 0x20...0x20])
    }
}
