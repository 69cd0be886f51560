/// The ecosystem names OSV records use (ossf/osv-schema's
/// `ecosystems.txt` and schema.md, as of late 2026), each of which may
/// carry a release after a colon (`Debian:12`, `Alpine:v3.20`,
/// `Ubuntu:22.04:LTS`). Written out by hand: a name the list lacks is only
/// warned of (`--check-config`), since OSV adds ecosystems; a name that
/// differs from one only in case is an error, as no record would ever
/// match it (`pypi` for `PyPI`: a silent clear, issue 51).
package enum OSVEcosystems {
    package static let names: [String] = [
        "AlmaLinux", "Alpaquita", "Alpine", "Android", "BellSoft Hardened Containers", "Bioconductor", "Bitnami", "Chainguard",
        "ConanCenter", "CRAN", "crates.io", "Debian", "Echo", "GHC", "GitHub Actions", "Go", "Hackage", "Hex", "Julia",
        "Kubernetes", "Linux", "Mageia", "Maven", "MinimOS", "npm", "NuGet", "openEuler", "openSUSE", "OSS-Fuzz", "Packagist",
        "Photon OS", "Pub", "PyPI", "Red Hat", "Rocky Linux", "RubyGems", "SUSE", "SwiftURL", "Ubuntu", "VSCode", "Wolfi",
    ]

    package enum Spelling: Equatable {
        /// One of `names`, with or without a release.
        case known
        /// One of `names` but for case: the right spelling, release kept.
        case miscased(String)
        case unknown
    }

    /// How `ecosystem` stands against `names`; the release after the first
    /// colon is not checked.
    package static func spelling(of ecosystem: String) -> Spelling {
        let (base, release) = ecosystem.firstIndex(of: ":").map { (String(ecosystem[..<$0]), String(ecosystem[$0...])) } ?? (ecosystem, "")
        if names.contains(base) { return .known }
        if let right = names.first(where: { $0.lowercased() == base.lowercased() }) { return .miscased(right + release) }
        return .unknown
    }
}
