import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Testing

@Suite("ssvcd.toml(5) describes every key the loader accepts")
struct ManualPageKeyTests {
    static let page: String = {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: tests.appendingPathComponent("docs/man/ssvcd.toml.5.scd"), encoding: .utf8)) ?? ""
    }()

    /// The part of the page between two headings.
    static func section(_ heading: String, until next: String) -> Substring {
        guard let start = page.firstRange(of: "# \(heading)") else { return "" }
        let rest = page[start.upperBound...]
        return rest[..<(rest.firstRange(of: "# \(next)")?.lowerBound ?? rest.endIndex)]
    }

    @Test("each [daemon] key has an entry under [daemon] KEYS")
    func daemonKeys() throws {
        let section = Self.section("[daemon] KEYS", until: "APP KEYS")
        try #require(!section.isEmpty && ConfigurationLoader.daemonKeys.count >= 10, "no section, or no keys to look for")
        for key in ConfigurationLoader.daemonKeys {
            #expect(section.contains("*\(key)* ="), "ssvcd.toml(5) does not describe [daemon] \(key)")
        }
    }

    @Test("each app key has an entry under APP KEYS")
    func appKeys() throws {
        let section = Self.section("APP KEYS", until: "HOOKS")
        try #require(!section.isEmpty && ConfigurationLoader.appKeys.count >= 10, "no section, or no keys to look for")
        for key in ConfigurationLoader.appKeys {
            #expect(section.contains("*\(key)* ="), "ssvcd.toml(5) does not describe the app key \(key)")
        }
    }
}
