import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

@Suite("UnixSocket: connect and bind by path")
struct UnixSocketTests {
    @Test("a path too long for sun_path is refused, not cut short")
    func tooLong() {
        let path = "/tmp/" + String(repeating: "x", count: 120)
        do {
            _ = try UnixSocket.connected(to: path)
            Issue.record("connected to a path longer than sun_path")
        } catch {
            #expect(error.code == ENAMETOOLONG)
            #expect(error.description == "cannot connect to \(path): File name too long")
        }
    }

    @Test("bind and connect meet on the same path")
    func roundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-sock-\(getpid())").path
        unlink(path)
        defer { unlink(path) }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        #expect(UnixSocket.bind(listener, to: path) == 0)
        #expect(listen(listener, 1) == 0)
        let client = try UnixSocket.connected(to: path)
        defer { close(client) }
        #expect(fcntl(client, F_GETFD) & FD_CLOEXEC != 0, "close-on-exec, so no child inherits it")
        let accepted = accept(listener, nil, nil)
        #expect(accepted >= 0)
        close(accepted)
        #expect(throws: UnixSocket.Failure.self) { try UnixSocket.connected(to: path + ".absent") }
    }
}
