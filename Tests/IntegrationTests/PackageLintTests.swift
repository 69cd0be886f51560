import Foundation
import SSVCTestSupport
import Testing

@Suite("the Debian package as lintian reads it", .processSlot)
struct PackageLintTests {
    @Test("lintian finds no error and no warning in the built .deb (overrides carry their reasons in the package)")
    func lintian() async throws {
        let deb = try #require(ProcessInfo.processInfo.environment["SSVC_DEB"], "SSVC_DEB names the package (make test sets it)")
        try #require(FileManager.default.fileExists(atPath: deb), "\(deb) is not built: run 'make test'")
        let result = try await Executable.run("/usr/bin/lintian", ["--tag-display-limit", "0", deb])
        let tags = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("E:") || $0.hasPrefix("W:") }
        #expect(tags.isEmpty, "\(tags.joined(separator: "\n"))")
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    }
}
