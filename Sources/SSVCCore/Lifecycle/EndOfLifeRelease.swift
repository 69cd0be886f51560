import FoundationEssentials

/// One release cycle of endoflife.date's API v1 (`ProductRelease`), as the
/// daemon keeps it: its name, its phases' dates and flags, and its latest
/// version. Every text is the server's: shown escaped, never raw.
package struct EndOfLifeRelease: Sendable, Equatable, Codable {
    /// The cycle's name (`1.24`, `22.04`, `nodejs18.x`): what a running
    /// version or `lifecycle-release` is matched against.
    package var name: String
    /// Its label, cut (`22.04 'Jammy Jellyfish' (LTS)`).
    package var label: String?
    /// End of active support (`eoasFrom`/`isEoas`); nil: the product has no such phase.
    package var activeSupport: Phase?
    /// End of life (`eolFrom`/`isEol`).
    package var endOfLife: Phase
    /// End of extended support (`eoesFrom`/`isEoes`); nil: none.
    package var extendedSupport: Phase?
    /// `latest.name`: the newest version in the cycle; nil when the answer has none.
    package var latest: String?

    /// A phase's end: its day, else the answer's flag. The day decides:
    /// the flag was frozen when the data was built and counts only where
    /// the day is not known.
    package struct Phase: Sendable, Equatable, Codable {
        /// The phase's last day, as 00:00 UTC of it; nil: not known.
        package var day: Date?
        /// The answer's boolean (`isEol`, …); nil when absent or null.
        package var flag: Bool?

        package init(day: Date?, flag: Bool?) {
            self.day = day
            self.flag = flag
        }

        /// Whether the phase has ended at `now`: from the day after its
        /// date (endoflife.date's own `today > date`), else by its flag.
        package func hasEnded(at now: Date) -> Bool {
            guard let day else { return flag ?? false }
            return now >= day.addingTimeInterval(86_400)
        }
    }

    package init(name: String, label: String? = nil, activeSupport: Phase? = nil, endOfLife: Phase, extendedSupport: Phase? = nil, latest: String? = nil) {
        self.name = name
        self.label = label
        self.activeSupport = activeSupport
        self.endOfLife = endOfLife
        self.extendedSupport = extendedSupport
        self.latest = latest
    }

    /// Whether the cycle named `name` is the one `version` belongs to: the
    /// version itself, or a prefix of it that ends at a component boundary
    /// (`1.24` for `1.24.6`, `1.24-1` and `1.24rc1`; never `1.2` for `1.24`).
    package static func covers(_ name: String, version: String) -> Bool {
        guard !name.isEmpty, version.utf8.starts(with: name.utf8) else { return false }
        guard let next = version.utf8.dropFirst(name.utf8.count).first, let last = name.utf8.last else { return true }
        // A boundary: a separator on either side, or a digit beside a letter.
        let (before, after) = (ByteClass(last), ByteClass(next))
        return before == .other || after == .other || before != after
    }

    /// `version` without a Debian (`1:`) or PEP 440 (`1!`) epoch: release
    /// lines are named after the upstream version (mariadb's `1:10.11.8-1`
    /// is in release `10.11`).
    static func withoutEpoch(_ version: String) -> String {
        let digits = version.utf8.prefix { DigitRun.isDigit($0) }
        guard !digits.isEmpty, let mark = version.utf8.dropFirst(digits.count).first,
              mark == UInt8(ascii: ":") || mark == UInt8(ascii: "!") else { return version }
        return String(version.utf8.dropFirst(digits.count + 1)) ?? version
    }

    private enum ByteClass {
        case digit, letter, other

        init(_ byte: UInt8) {
            if DigitRun.isDigit(byte) {
                self = .digit
            } else if (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") {
                self = .letter
            } else {
                self = .other
            }
        }
    }

    /// The release among `releases` that `version` runs: `named` when
    /// given (`lifecycle-release`), else the one whose name is the version
    /// or its longest prefix at a component boundary; nil when none is.
    package static func matching(_ version: String, in releases: [EndOfLifeRelease], named: String? = nil) -> EndOfLifeRelease? {
        if let named { return releases.first { $0.name == named } }
        let version = withoutEpoch(version)
        var best: EndOfLifeRelease?
        for release in releases where covers(release.name, version: version) {
            if release.name.utf8.count > (best?.name.utf8.count ?? -1) { best = release }
        }
        return best
    }
}
