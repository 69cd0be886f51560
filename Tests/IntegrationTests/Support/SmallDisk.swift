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

    /// A daemon of one app `d` whose state folder (and metrics file, with
    /// `metrics`) is on this disk.
    func daemon(in folder: TemporaryFolder, metrics: Bool = false) throws -> DaemonProcess {
        let config = """
            [daemon]
            state-dir = "\(path)/state"
            \(metrics ? "metrics-file = \"\(path)/ssvc.prom\"" : "")
            socket = "control.sock"
            min-interval-seconds = 0
            first-check-window-seconds = 0
            catch-up-window-seconds = 0

            \(appTable("d", url: "file://" + (try folder.file("r.json", goodBody))))
            """
        return try DaemonProcess(folder: folder, config: config, daemon: "", apps: "", arguments: [], environment: [:])
    }

    /// Fills the disk to its last block.
    func fill() async throws {
        _ = try await Executable.shell("dd if=/dev/zero of='\(path)/fill' bs=4k 2>/dev/null; true")
    }
}
