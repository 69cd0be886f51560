import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// `ssvcctl check APP`, which returns once the check is done.
@discardableResult
func check(_ daemon: DaemonProcess, _ app: String) async throws -> CommandResult {
    try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", app])
}

/// An app whose documents must be signed by one of `keys`.
func signedApp(_ name: String, server: VersionServer, keys: [String], extra: String = "") -> String {
    appTable(name, url: server.url("/\(name).json"), extra: "public-keys = [\(keys.map { "\"\($0)\"" }.joined(separator: ", "))]\n" + extra)
}

/// The server's scenario: each path's body, and the whole answer for the
/// paths in `answers` (a status, an ETag).
func files(_ bodies: [String: String], answers: [String: [String: Any]] = [:]) -> [String: Any] {
    var paths: [String: [String: Any]] = answers
    for (path, body) in bodies { paths[path, default: [:]]["body"] = body }
    return ["body": "{}", "paths": paths]
}

/// Rewrites the daemon's configuration file with `change` and reloads it.
func reconfigure(_ daemon: DaemonProcess, _ change: (String) -> String) async throws {
    let text = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
    try change(text).write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
    let reload = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "reload"])
    try #require(reload.status == 0, "\(reload.standardError)")
}

let newerBody = #"{"SSVCLatestVersionKey":"9.9","SSVCLatestVersionNumber":151584768}"#
