/// FNV-1a, 64 bits: a hash that is the same in every process and release
/// (Swift's `Hasher` is seeded per process), for keys that are persisted.
public enum StableHash {
    public static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
