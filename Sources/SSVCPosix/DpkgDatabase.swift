@preconcurrency import Glibc
import SSVCCore
import NIOConcurrencyHelpers

/// Installed packages' versions, read from dpkg's database as `dpkg-query`
/// reads it, without starting a process. The file is parsed again only when
/// it changed (dpkg replaces it by a rename), so many apps reading package
/// versions cost one parse per upgrade, not one per check.
public final class DpkgDatabase: Sendable {
    public static let shared = DpkgDatabase()

    /// The largest status file read: a desktop with every package has a few MB.
    public static let limit = 64 << 20

    /// Which file the parsed database came from.
    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec

        static func == (a: Identity, b: Identity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }

    private let cache = NIOLockedValueBox<(path: String, identity: Identity, status: DpkgStatus)?>(nil)

    public init() {}

    /// `$DPKG_ADMINDIR/status`, as dpkg honours that variable, else
    /// `/var/lib/dpkg/status`.
    public static func statusPath(environment: [String: String]) -> String {
        let folder = environment["DPKG_ADMINDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/var/lib/dpkg"
        return folder + "/status"
    }

    /// The version of `name` (or `name:architecture`) installed now.
    public func installedVersion(of name: String, path: String) throws(BoundedReader.Failure) -> String {
        let status = try parsed(path)
        do {
            return try status.installedVersion(of: name)
        } catch {
            throw BoundedReader.Failure(description: error.description, code: nil)
        }
    }

    /// The source package of `name` installed now, and its version (`DpkgStatus.installedSource`).
    public func installedSource(of name: String, path: String) throws(BoundedReader.Failure) -> (package: String, version: String) {
        let status = try parsed(path)
        do {
            return try status.installedSource(of: name)
        } catch {
            throw BoundedReader.Failure(description: error.description, code: nil)
        }
    }

    private func parsed(_ path: String) throws(BoundedReader.Failure) -> DpkgStatus {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw BoundedReader.Failure(description: "cannot read dpkg's database \(path): \(String(cString: strerror(code)))", code: code)
        }
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: info.st_mtim)
        let cached = cache.withLockedValue { entry in entry.flatMap { $0.path == path && $0.identity == identity ? $0.status : nil } }
        let status: DpkgStatus
        if let cached {
            status = cached
        } else {
            status = DpkgStatus(parsing: try BoundedReader.read(path: path, limit: Self.limit))
            cache.withLockedValue { $0 = (path, identity, status) }
        }
        return status
    }
}
