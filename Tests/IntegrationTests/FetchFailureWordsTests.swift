import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("fetch failures in words of our own", .processSlot)
struct FetchFailureWordsTests {
    @Test("each failure a loopback server can provoke reads as one phrase naming host and port, the same in lastError, ssvcctl and the journal", arguments: [
        ("refused", "cannot connect to 127.0.0.1:PORT: connection refused"),
        ("drop", "the server at 127.0.0.1:PORT closed the connection before a whole response"),
        ("rst", "the server at 127.0.0.1:PORT reset the connection"),
        ("plain", "TLS to 127.0.0.1:PORT: the server does not speak TLS there (plain http on an https port?)"),
        ("hang", "the request to 127.0.0.1:PORT took longer than timeout-seconds (1 s)"),
    ])
    func phrase(kind: String, expected: String) async throws {
        let server = try await VersionServer(scenario: ["mode": kind == "plain" ? "normal" : kind])
        let port = kind == "refused" ? try freeLoopbackPort() : Int(server.url("/").split(separator: ":").last!.prefix { $0.isNumber })!
        let url = (kind == "plain" ? "https" : "http") + "://127.0.0.1:\(port)/v.json"
        let daemon = try DaemonProcess(daemon: "timeout-seconds = 1", apps: appTable("f", url: url))
        #expect(await daemon.wait { daemon.app("f")?["lastError"] != nil }, "\(daemon.log)")
        let phrase = expected.replacingOccurrences(of: "PORT", with: String(port))
        #expect(daemon.app("f")?["lastError"] as? String == phrase)
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--timeout", "5"])
        #expect(status.standardOutput.contains(phrase), "\(status.standardOutput)")
        #expect(daemon.lines(for: "f").last?.contains("SSVC_ERROR=\(phrase)") == true, "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }
}
