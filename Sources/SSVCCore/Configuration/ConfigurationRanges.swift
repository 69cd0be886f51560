/// The range of each number a configuration may set (ssvcd.toml(5) and
/// the README list them): outside it a file is refused, never a number
/// carried into arithmetic that would overflow. `ssvcctl evaluate`'s
/// options that mirror these keys hold to the same ranges.
public enum ConfigurationRanges {
    public static let idleTimeoutSeconds = 1...86_400
    public static let timeoutSeconds = 0.001...3_600.0
    public static let maxResponseBytes = 1...(64 << 20)
    /// `max-response-bytes` when not set: 1 MiB.
    public static let defaultMaxResponseBytes = 1 << 20
    /// The spreading windows and min-interval-seconds: up to 31 days.
    public static let windowSeconds = 0...2_678_400
    /// min-release-age-days: up to 100 years.
    public static let releaseAgeDays = 0...36_500
    /// max-signature-age-days: a day to 100 years.
    public static let signatureAgeDays = 1...releaseAgeDays.upperBound
    /// phased-rollout-seconds: up to 366 days.
    public static let rolloutSeconds = 0...Int(PhasedRollout.maximumWindowSeconds)
    /// rollout-position: a fraction of the window.
    public static let rolloutPosition = 0.0...1.0
    /// version-number: any integer TOML holds that is not negative.
    public static let versionNumber = 0...Int.max
    /// `advisories-max-age-days`.
    public static let advisoryAgeDays = 1...releaseAgeDays.upperBound
    /// `advisories-max-bytes`: 1 KiB to 16 GiB.
    public static let advisoryBytes = 1024...(16 << 30)

    /// Why `number` is refused for a key whose range is `range`, without
    /// the key's name; nil when it is within.
    public static func problem(_ number: Int, in range: ClosedRange<Int>) -> String? {
        range.contains(number) ? nil : "must be from \(range.lowerBound) to \(range.upperBound), found \(number)"
    }

    /// The same for a number that may have a fraction: infinity and NaN
    /// are never within.
    public static func problem(_ number: Double, in range: ClosedRange<Double>) -> String? {
        number.isFinite && range.contains(number)
            ? nil : "must be from \(text(range.lowerBound)) to \(text(range.upperBound)), found \(text(number))"
    }

    /// 30 for 30.0, 0.001 as it is.
    private static func text(_ number: Double) -> String {
        number.isFinite && number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
    }
}
