import Foundation
import SSVCSigning
import SSVCTestSupport
import Testing

/// ssvc derives its app-specific machine id itself (the fleet simulation
/// needs it for ids that are not this machine's); systemd's own
/// `systemd-id128 --app-specific` is the oracle.
@Suite("the app-specific machine id")
struct AppSpecificIDTests {
    @Test("is the one systemd-id128 --app-specific derives from /etc/machine-id")
    func agreesWithSystemd() async throws {
        let machineID = try #require(
            (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines),
            "this test needs /etc/machine-id"
        )
        let application = AppSpecificID.application.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let derived = try await Command.run(["systemd-id128", "--app-specific=\(application)", "machine-id"])
        try #require(derived.status == 0, "systemd-id128: \(derived.standardError)")
        let expected = derived.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(AppSpecificID.derive(machineID: machineID) == expected)
        #expect(AppSpecificID.derive(machineID: machineID) != machineID)
    }

    @Test("ssvc's application id is fixed forever: the ids of a known machine id and a stand-in are pinned")
    func pinned() {
        // Computed independently with Python's hmac: HMAC-SHA256 keyed by
        // the machine id's 16 bytes (a stand-in's own bytes) over
        // 7304e881716d41dca01e669961e7bafa, cut to 16 bytes, marked v4.
        #expect(AppSpecificID.application.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() == "7304e881716d41dca01e669961e7bafa")
        #expect(AppSpecificID.derive(machineID: "0123456789abcdef0123456789abcdef") == "331f7f138b124e8e9535a524b7d6abcd")
        #expect(AppSpecificID.derive(machineID: "0123456789ABCDEF0123456789ABCDEF") == "331f7f138b124e8e9535a524b7d6abcd")
        #expect(AppSpecificID.derive(machineID: "build-host") == "22d8a05279194e7f87fe536f1ef5daa8")
    }
}
