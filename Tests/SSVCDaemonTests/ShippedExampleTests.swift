import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Testing

@Suite("the shipped examples")
struct ShippedExampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("etc/ssvcd.toml and etc/apps.d/example.toml load as they are")
    func examples() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-example-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var main = try String(contentsOf: Self.repository.appendingPathComponent("etc/ssvcd.toml"), encoding: .utf8)
        main = main.replacingOccurrences(of: "# apps-dir = \"/etc/ssvc/apps.d\"", with: "apps-dir = \"\(Self.repository.path)/etc/apps.d\"")
        let path = folder.appendingPathComponent("ssvcd.toml").path
        try main.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(.init(mainFile: path), environment: [:])
        #expect(configuration.apps.map(\.name) == ["example"])
        #expect(configuration.apps.first?.version == .package("example", database: "/var/lib/dpkg/status"))
        #expect(configuration.apps.first?.versionScheme == .debian)
    }
}
