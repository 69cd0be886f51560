import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("control socket: binding", .processSlot)
struct ControlBindingTests {
    @Test("a stale socket is replaced; a live one or a plain file is not")
    func binding() async throws {
        let folder = try TemporaryFolder()
        // A stale socket: bound, then its process gone.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let path = folder.url.appendingPathComponent("control.sock").path
        _ = UnixSocket.bind(stale, to: path)
        close(stale)
        let first = try DaemonProcess(apps: "", folder: folder)
        await #expect(first.wait { first.log.contains("started with 0 apps") }, "\(first.log)")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o666)

        // A state folder of its own: the first holds the lock of "state".
        let second = try DaemonProcess(apps: "", arguments: ["--state-dir", folder.url.appendingPathComponent("state2").path], folder: folder)
        await #expect(second.process.exitCode() == 1)
        #expect(second.log.contains("another process is serving \(path)"), "\(second.log)")
        await #expect(first.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: path), "the socket is removed on stop")

        try "precious".write(toFile: path, atomically: true, encoding: .utf8)
        let third = try DaemonProcess(apps: "", folder: folder)
        await #expect(third.process.exitCode() == 1)
        #expect(third.log.contains("exists and is not a socket"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test("under systemd-socket-activate the daemon serves on the passed socket")
    func socketActivation() async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("activated.sock").path
        _ = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"\(folder.url.path)/unused.sock\"\n")
        let activator = try ChildProcess(
            "/usr/bin/systemd-socket-activate",
            ["-l", path, try Executable.path("ssvcd"), "--config", folder.url.path + "/ssvcd.toml", "--log-target", "stderr"]
        )
        _ = await eventually(within: 10, every: 0.02) { FileManager.default.fileExists(atPath: path) }
        let status = try await Executable.run("ssvcctl", ["--socket", path, "status"])
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput == "no apps configured\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url.path + "/unused.sock"))
        kill(activator.pid, SIGTERM)
        #expect(await activator.exitCode() == 0, "ssvcd stops cleanly on a socket systemd owns")
        #expect(FileManager.default.fileExists(atPath: path), "a socket systemd owns is not removed")
    }
}
