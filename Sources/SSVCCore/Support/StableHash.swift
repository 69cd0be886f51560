/// FNV-1a, 64 bits: a hash that is the same in every process and release
/// (Swift's `Hasher` is seeded per process), for keys that are persisted.
public enum StableHash {
    public static func value(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    public static func hex(_ text: String) -> String {
        let digits = String(value(text), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `value`, with every input bit spread over every output bit
    /// (SplitMix64's finalizer): FNV-1a alone leaves the high bits of short
    /// keys that differ in their last byte too alike to be used as a fraction.
    public static func mixed(_ text: String) -> UInt64 {
        SplitMix64.mix(value(text))
    }

    /// A fraction in [0, 1) from `mixed`: 53 bits, as many as a Double holds.
    public static func fraction(_ text: String) -> Double {
        Double(mixed(text) >> 11) / Double(UInt64(1) << 53)
    }
}
