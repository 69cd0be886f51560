/// The version of the product installed on this machine, as a check sees it.
public struct RunningVersion: Sendable, Equatable {
    /// The version key (`1.4.2`); empty when the product did not say.
    public var key: String
    /// The version number; nil when unknown. An explicitly configured `0` is
    /// a known number (SSVC's own tests run as version 0).
    public var number: UInt64?
    public var scheme: VersionScheme
    /// The version as the product or the operator wrote it (`v1.4.2`),
    /// before the scheme read it: an advisory's `versions` entry may name it so.
    public var written: String

    /// `configuredNumber` wins; without it the number is derived from the key
    /// with Apple's NumVersion packing where the key fits it.
    public init(key: String, configuredNumber: UInt64? = nil, scheme: VersionScheme = .dotted, written: String? = nil) {
        self.key = key
        self.written = written ?? key
        self.number = configuredNumber ?? NumVersion.pack(key)
        self.scheme = scheme
    }
}
