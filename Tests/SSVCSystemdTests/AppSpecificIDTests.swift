import CSystemd
import Glibc
import SSVCSigning
import Testing

/// ssvc derives its app-specific machine id itself (the fleet simulation
/// needs it for ids that are not this machine's); libsystemd is the oracle.
@Suite("the app-specific machine id")
struct AppSpecificIDTests {
    @Test("is the one sd_id128_get_machine_app_specific() derives from /etc/machine-id")
    func agreesWithLibsystemd() throws {
        let handle = fopen("/etc/machine-id", "r")
        try #require(handle != nil, "this test needs /etc/machine-id")
        var line = [CChar](repeating: 0, count: 64)
        fgets(&line, Int32(line.count), handle)
        fclose(handle)
        let machineID = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        var application = sd_id128_t()
        withUnsafeMutableBytes(of: &application.bytes) { bytes in
            for (index, byte) in AppSpecificID.application.enumerated() { bytes[index] = byte }
        }
        var derived = sd_id128_t()
        #expect(sd_id128_get_machine_app_specific(application, &derived) == 0)
        let expected = withUnsafeBytes(of: derived.bytes) { bytes in
            bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        }
        #expect(AppSpecificID.derive(machineID: machineID) == expected)
        #expect(AppSpecificID.derive(machineID: machineID) != machineID)
    }

    @Test("a stand-in machine id (a container's host name) still gives a 32-digit id")
    func standIn() {
        let id = AppSpecificID.derive(machineID: "build-host")
        #expect(id.count == 32)
        #expect(id != AppSpecificID.derive(machineID: "other-host"))
    }
}
