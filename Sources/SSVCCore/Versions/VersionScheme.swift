/// How two version keys of one product are ordered.
public enum VersionScheme: String, CaseIterable, Sendable, Codable {
    /// Split on `.`; numeric parts compare as numbers, other parts as text;
    /// missing trailing parts count as 0, so `2.1 == 2.1.0` and `2.31 > 2.4`.
    case dotted
    /// Semantic Versioning 2.0.0 precedence (build metadata ignored).
    case semver
    /// Debian's ordering, as `dpkg --compare-versions`.
    case debian
    /// Foundation's `compare(_:options: .numeric)`, as SSVC and the App Store
    /// lookup recipe compare `CFBundleShortVersionString`s.
    case nsnumeric
    /// PEP 440, as Python's `packaging` reads, orders and prints versions
    /// (pip, PyPI): epochs, pre-, post- and dev releases, local versions.
    case pep440

    /// Orders `lhs` against `rhs`.
    ///
    /// | result      | meaning                         |
    /// |-------------|---------------------------------|
    /// | `.older`    | `lhs` comes before `rhs`        |
    /// | `.same`     | equal under this scheme         |
    /// | `.newer`    | `lhs` comes after `rhs`         |
    ///
    /// Throws when either key is not a version under this scheme (`semver`,
    /// `debian` and `pep440` have a grammar; `dotted` and `nsnumeric` take
    /// any text, a leading `v` dropped, so callers `validate` first).
    public func compare(_ lhs: String, _ rhs: String) throws(VersionError) -> VersionComparison {
        switch self {
        case .dotted:
            return DottedVersion.compare(Self.droppingV(lhs), Self.droppingV(rhs))
        case .semver:
            return try SemanticVersion(parsing: lhs).compare(to: SemanticVersion(parsing: rhs))
        case .debian:
            return try DebianVersion(parsing: lhs).compare(to: DebianVersion(parsing: rhs))
        case .nsnumeric:
            return NumericStringOrder.compare(Self.droppingV(lhs), Self.droppingV(rhs))
        case .pep440:
            return try PEP440Version(parsing: lhs).compare(to: PEP440Version(parsing: rhs))
        }
    }

    /// Checks that `key` is a version under this scheme: never empty; for
    /// `dotted` and `nsnumeric`, a digit first after an optional leading
    /// `v` (so `stable`, `x`, `v` and `myagent 1.0` are not versions, and
    /// letters never sort above every number); `semver`, `debian` and
    /// `pep440` by their grammars.
    public func validate(_ key: String) throws(VersionError) {
        _ = try normalized(key)
    }

    /// `key` as this scheme reads it: `v1.2` is `1.2` under `dotted`,
    /// `nsnumeric` and `semver`, which allow a leading `v`; `debian` keeps
    /// every character (dpkg orders a `v` as a letter); `pep440` gives the
    /// canonical form packaging prints (` V1.0-RC-1 ` is `1.0rc1`).
    /// Throws as `validate` does.
    public func normalized(_ key: String) throws(VersionError) -> String {
        guard !key.isEmpty else { throw VersionError(version: key, scheme: self, reason: "empty") }
        switch self {
        case .dotted, .nsnumeric:
            let dropped = Self.droppingV(key)
            guard let first = dropped.utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                throw VersionError(version: key, scheme: self, reason: "does not begin with a digit (after an optional leading 'v')")
            }
            return dropped
        case .semver:
            _ = try SemanticVersion(parsing: key)
            return Self.droppingV(key)
        case .debian:
            _ = try DebianVersion(parsing: key)
            return key
        case .pep440:
            return try PEP440Version(parsing: key).normalized
        }
    }

    /// `1.2` for `v1.2`; anything else as it is.
    static func droppingV(_ key: String) -> String {
        key.hasPrefix("v") ? String(key.dropFirst()) : key
    }
}

/// Where one version stands against another.
public enum VersionComparison: Sendable, Equatable {
    case older, same, newer

    /// The same comparison seen from the other side.
    public var reversed: VersionComparison {
        switch self {
        case .older: .newer
        case .same: .same
        case .newer: .older
        }
    }

    init<T: Comparable>(_ lhs: T, _ rhs: T) {
        self = lhs < rhs ? .older : (lhs == rhs ? .same : .newer)
    }
}

/// A version key that its scheme cannot read.
public struct VersionError: Error, Equatable, CustomStringConvertible {
    public let version: String
    public let scheme: VersionScheme
    public let reason: String

    public var description: String {
        "'\(version)' is not a valid \(scheme.rawValue) version: \(reason)"
    }
}
