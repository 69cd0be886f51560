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
        switch (value, other.value) {
        case let (.dotted(a), .dotted(b)): DottedVersion.compare(a, b)
        case let (.numeric(a), .numeric(b)): NumericStringOrder.compare(a, b)
        case let (.semver(a), .semver(b)): a.compare(to: b)
        case let (.debian(a), .debian(b)): a.compare(to: b)
        case let (.pep440(a), .pep440(b)): a.compare(to: b)
        default: .same
        }
    }
}
