import Foundation
import SSVCSystemd
import Testing

@Suite("systemd glue")
struct SystemdTests {
    @Test("isBooted agrees with the presence of /run/systemd/system")
    func booted() {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: "/run/systemd/system", isDirectory: &isDirectory)
        #expect(Systemd.isBooted == (exists && isDirectory.boolValue))
    }
}
