/// Apple's packed `NumVersion`, which SSVC used as the version number:
/// major in BCD in the top byte, minor and bugfix in one nibble each, then
/// the release stage `0x80` (final) and a zero pre-release byte.
/// `1.0` → 0x01008000 = 16809984, `1.0.4` → 0x01048000 = 17072128.
public enum NumVersion {
    /// The packed number for a key of the form `M[M].m[.b]` (major ≤ 99,
    /// minor and bugfix ≤ 15); nil for any other key.
    public static func pack(_ key: String) -> UInt64? {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(DigitRun.isDigit) }),
              parts[0].count <= 2,
              let major = UInt64(parts[0]), let minor = UInt64(parts[1]), minor <= 15
        else { return nil }
        var bugfix: UInt64 = 0
        if parts.count == 3 {
            guard let value = UInt64(parts[2]), value <= 15 else { return nil }
            bugfix = value
        }
        let bcdMajor = (major / 10) << 4 | (major % 10)
        return bcdMajor << 24 | minor << 20 | bugfix << 16 | 0x8000
    }
}
