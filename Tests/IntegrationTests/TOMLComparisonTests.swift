import Foundation
import SSVCTestSupport
import Testing

@Suite("configuration files: the loader reads TOML as Python's tomllib does", .processSlot)
struct TOMLComparisonTests {
    @Test("400 generated and mutated configuration files: both accept or both reject, and read the same values")
    func agreesWithTomllib() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/toml_compare.py").path
        let folder = try TemporaryFolder()
        let result = try await Executable.run("/usr/bin/env", ["python3", script, try Executable.path("ssvcd"), folder.url.path, "400", "25"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("400 passed, 0 failed"), "\(result.standardOutput)")
        // Values were compared on many of them, not only refusals.
        let valid = result.standardOutput.firstMatch(of: /(\d+) valid TOML/).flatMap { Int($0.1) } ?? 0
        #expect(valid >= 150, "only \(valid) of the files were valid TOML: \(result.standardOutput)")
    }
}
