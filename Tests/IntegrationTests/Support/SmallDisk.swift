import Foundation
import SSVCTestSupport
import Testing

/// A 256 KiB tmpfs mounted at `<folder>/small` for a test of a full disk;
/// `unmount` detaches it. Needs root.
struct SmallDisk {
    let path: String

    init(in folder: TemporaryFolder) async throws {
        try #require(getuid() == 0, "mounting a small tmpfs needs root")
        path = folder.url.appendingPathComponent("small").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try await Executable.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", path])
        try #require(mounted.status == 0, "\(mounted.standardError)")
    }

    func unmount() { umount2(path, Int32(MNT_DETACH)) }
}
