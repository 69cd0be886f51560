/// How an OSV ecosystem orders its versions (SPEC §13): `Debian` and
/// `Debian:*` as dpkg, `PyPI` as PEP 440, `npm`, `crates.io` and `Go` as
/// SemVer 2.0.0 (Go's leading `v` dropped). Any other ecosystem has no
/// order here: only its `versions` lists are matched, as plain strings.
public enum EcosystemOrder: Sendable, Equatable {
    case ordered(VersionScheme)
    case unordered

    public init(ecosystem: String) {
        switch ecosystem {
        case "PyPI": self = .ordered(.pep440)
        case "npm", "crates.io", "Go": self = .ordered(.semver)
        case "Debian": self = .ordered(.debian)
        default: self = ecosystem.hasPrefix("Debian:") ? .ordered(.debian) : .unordered
        }
    }

    /// Whether a record's package name denotes `name` in `ecosystem`:
    /// PyPI compares names as PEP 503 normalises them (`Foo_Bar` is
    /// `foo-bar`); every other ecosystem compares them exactly.
    public static func samePackage(_ recordName: String, _ name: String, ecosystem: String) -> Bool {
        guard ecosystem == "PyPI" else { return recordName == name }
        return pythonNormalized(recordName) == pythonNormalized(name)
    }

    /// PEP 503: lower case, each run of `-`, `_` and `.` one `-`. In one
    /// pass over the bytes and one lowercasing of the whole: the separators
    /// are ASCII, never part of another character's UTF-8 (appending a
    /// character at a time through `unicodeScalars` was quadratic: a
    /// 1 MiB name took 30 s, issue 51).
    static func pythonNormalized(_ name: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        var inRun = false
        for byte in name.utf8 {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") {
                if !inRun { bytes.append(UInt8(ascii: "-")) }
                inRun = true
            } else {
                bytes.append(byte)
                inRun = false
            }
        }
        return String(decoding: bytes, as: UTF8.self).lowercased()
    }
}
