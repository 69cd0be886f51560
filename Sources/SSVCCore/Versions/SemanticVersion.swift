/// A Semantic Versioning 2.0.0 version (semver.org), for precedence only.
///
/// A leading `v` is accepted (`v1.2.3`, as tags are often written); the rest
/// follows the grammar strictly, so `1.2` or `01.2.3` are errors, not guesses.
struct SemanticVersion {
    /// Major, minor and patch as digit strings, compared by value at any length.
    let core: [ArraySlice<UInt8>]
    let prerelease: [ArraySlice<UInt8>]

    init(parsing text: String) throws(VersionError) {
        func fail(_ reason: String) -> VersionError {
            VersionError(version: text, scheme: .semver, reason: reason)
        }
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "v") || bytes.first == UInt8(ascii: "V") { bytes = bytes.dropFirst() }
        if let plus = bytes.firstIndex(of: UInt8(ascii: "+")) {
            let build = bytes[(plus + 1)...]
            for identifier in build.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
                guard !identifier.isEmpty else { throw fail("empty build identifier") }
                guard identifier.allSatisfy(Self.isIdentifierByte) else {
                    throw fail("build metadata may hold only [0-9A-Za-z-]")
                }
            }
            bytes = bytes[..<plus]
        }
        var prerelease: [ArraySlice<UInt8>] = []
        if let dash = bytes.firstIndex(of: UInt8(ascii: "-")) {
            for identifier in bytes[(dash + 1)...].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
                guard !identifier.isEmpty else { throw fail("empty pre-release identifier") }
                guard identifier.allSatisfy(Self.isIdentifierByte) else {
                    throw fail("pre-release identifiers may hold only [0-9A-Za-z-]")
                }
                if identifier.allSatisfy(DigitRun.isDigit), identifier.count > 1, identifier.first == UInt8(ascii: "0") {
                    throw fail("numeric pre-release identifier with a leading zero")
                }
                prerelease.append(identifier)
            }
            bytes = bytes[..<dash]
        }
        let core = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard core.count == 3 else { throw fail("expected MAJOR.MINOR.PATCH") }
        for part in core {
            guard !part.isEmpty, part.allSatisfy(DigitRun.isDigit) else {
                throw fail("MAJOR, MINOR and PATCH must be numbers")
            }
            guard part.count == 1 || part.first != UInt8(ascii: "0") else {
                throw fail("MAJOR, MINOR and PATCH must not have leading zeros")
            }
        }
        self.core = core
        self.prerelease = prerelease
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        DigitRun.isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "-")
    }

    func compare(to other: SemanticVersion) -> VersionComparison {
        for (a, b) in zip(core, other.core) {
            let order = DigitRun.compare(a, b)
            if order != .same { return order }
        }
        // A pre-release comes before the release it precedes.
        switch (prerelease.isEmpty, other.prerelease.isEmpty) {
        case (true, true): return .same
        case (true, false): return .newer
        case (false, true): return .older
        case (false, false): break
        }
        for (a, b) in zip(prerelease, other.prerelease) {
            let aNumeric = a.allSatisfy(DigitRun.isDigit)
            let bNumeric = b.allSatisfy(DigitRun.isDigit)
            let order: VersionComparison
            switch (aNumeric, bNumeric) {
            case (true, true): order = DigitRun.compare(a, b)
            case (true, false): order = .older
            case (false, true): order = .newer
            case (false, false): order = a.lexicographicallyPrecedes(b) ? .older : (a == b ? .same : .newer)
            }
            if order != .same { return order }
        }
        return VersionComparison(prerelease.count, other.prerelease.count)
    }
}
