@preconcurrency import Glibc
import SSVCCore

/// Time zones from the system's tzdata (SPEC §16): ssvcd reads them at
/// every load of its configuration, `ssvcctl evaluate` at each run.
package enum ZoneFiles {
    package static let zoneinfo = "/usr/share/zoneinfo"

    /// The zone `windows-time-zone` names: UTC without a file, `localtime`
    /// from /etc/localtime (UTC when there is none, as the C library
    /// takes it), an IANA name from `zoneinfo`; or why it cannot be read.
    package static func load(_ name: String, zoneinfo: String = zoneinfo) throws(ZoneRulesError) -> ZoneRules {
        let path: String
        switch WindowKeys.zonePath(name, zoneinfo: zoneinfo) {
        case .success(nil): return .utc
        case let .success(found?): path = found
        case let .failure(problem):
            throw ZoneRulesError("'\(DisplayText.escaped(DisplayText.cut(name, bytes: 256)))': \(problem.description)")
        }
        let bytes: [UInt8]
        do {
            bytes = try BoundedReader.read(path: path, limit: ZoneRules.maximumBytes)
        } catch {
            if name == "localtime", error.code == ENOENT { return ZoneRules(utcNamed: name) }
            throw ZoneRulesError(error.code == ENOENT ? "no zone '\(name)' in \(zoneinfo) (is the tzdata package installed?)" : error.description)
        }
        do {
            return try ZoneRules(name: name, tzif: bytes)
        } catch {
            throw ZoneRulesError("\(path): \(error.reason)")
        }
    }
}
