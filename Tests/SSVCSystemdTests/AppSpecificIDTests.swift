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
