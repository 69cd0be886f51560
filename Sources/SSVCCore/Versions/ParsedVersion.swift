/// A version read once under a scheme, for many comparisons: sorting a
/// range's events read both keys at every comparison, and 40 records of
/// 4 × 4,096 events took 36 s on a busy machine (issue 51).
struct ParsedVersion {
    private enum Value {
        case dotted(String)
        case numeric(String)
        case semver(SemanticVersion)
        case debian(DebianVersion)
        case pep440(PEP440Version)
    }

    private let value: Value

    /// Throws as `scheme.validate(key)` does.
    init(_ key: String, scheme: VersionScheme) throws(VersionError) {
        switch scheme {
        case .dotted:
            try scheme.validate(key)
            value = .dotted(VersionScheme.droppingV(key))
        case .nsnumeric:
            try scheme.validate(key)
            value = .numeric(VersionScheme.droppingV(key))
        case .semver:
            value = .semver(try SemanticVersion(parsing: key))
        case .debian:
            value = .debian(try DebianVersion(parsing: key))
        case .pep440:
            value = .pep440(try PEP440Version(parsing: key))
        }
    }

    /// As `VersionScheme.compare` orders the two keys; versions read under
    /// different schemes are never compared (they count as the same).
    func compare(to other: ParsedVersion) -> VersionComparison {
        // One value at a time: a tuple of both copies them, each array retained.
        switch value {
        case let .dotted(a): if case let .dotted(b) = other.value { return DottedVersion.compare(a, b) }
        case let .numeric(a): if case let .numeric(b) = other.value { return NumericStringOrder.compare(a, b) }
        case let .semver(a): if case let .semver(b) = other.value { return a.compare(to: b) }
        case let .debian(a): if case let .debian(b) = other.value { return a.compare(to: b) }
        case let .pep440(a): if case let .pep440(b) = other.value { return a.compare(to: b) }
        }
        return .same
    }
}
