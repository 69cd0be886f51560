import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

let upToDateBody = #"{"SSVCLatestVersionKey":"1.0","SSVCMinimumSupportedVersionNumber":0}"#

let requiredBody = #"{"SSVCLatestVersionKey":"2.0","SSVCMinimumSupportedVersionNumber":33554432}"#

/// `ssvcctl ARGUMENTS` against the daemon's socket, timed.
func ssvcctl(_ daemon: DaemonProcess?, _ arguments: [String], socket: String? = nil) async throws -> (result: CommandResult, seconds: Double) {
    let path = socket ?? daemon?.socketPath ?? "/nonexistent/ssvc.sock"
    let result = try await Executable.run("ssvcctl", ["--socket", path] + arguments)
    return (result, result.seconds)
}
