import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// A daemon with two apps on `file://` documents, for the socket's tests.
func controlDaemon(daemon settings: String = "", environment: [String: String] = [:]) async throws -> DaemonProcess {
    let folder = try TemporaryFolder()
    let document = "file://" + (try folder.file("r.json", goodBody))
    let apps = appTable("alpha", url: document) + "\n" + appTable("beta", url: document).replacingOccurrences(of: "\"1.0\"", with: "\"1.1\"")
    let daemon = try DaemonProcess(daemon: settings, apps: apps, environment: environment, folder: folder)
    await #expect(daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) && daemon.app("beta")?["lastSuccess"] != nil })
    return daemon
}

/// GetStatus still answers, and correctly, after whatever a test did.
func expectHealthy(_ daemon: DaemonProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(daemon.process.isRunning, sourceLocation: sourceLocation)
    let client = try RawConnection(daemon.socketPath)
    client.call("io.ssvc.Daemon.GetStatus")
    // Whether it answers, not how fast: on one core shared with the whole
    // suite (the strict check, issue 49) 5 s once passed without an answer
    // right after a flood. Speed has bounds of its own where it matters.
    guard case let .message(reply) = await client.receive(within: 30) else {
        Issue.record("no answer to GetStatus within 30 s", sourceLocation: sourceLocation)
        return
    }
    let apps = ((reply["parameters"] as? [String: Any])?["apps"] as? [Any]) ?? []
    let names = apps.compactMap { ($0 as? [String: Any])?["name"] as? String }
    #expect(names == ["alpha", "beta"], sourceLocation: sourceLocation)
}

enum ShippedInterface {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SSVCControl/io.ssvc.Daemon.varlink")
}

/// RefusalLog's figures, as ssvcd(8) states them.
enum RefusalLogLimits {
    static let linesPerInterval = 5
}
