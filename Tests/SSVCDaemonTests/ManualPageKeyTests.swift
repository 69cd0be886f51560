import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Testing

@Suite("ssvcd.toml(5) describes every key the loader accepts, as the key is declared")
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

    /// The entry of `name` in `section`: its `*name* = …` line and the
    /// indented text under it, up to the next entry.
    static func entry(_ name: String, in section: Substring) -> Substring? {
        guard let start = section.firstRange(of: "\n*\(name)* =") else { return nil }
        let rest = section[section.index(after: start.lowerBound)...]
        return rest[..<(rest.firstRange(of: "\n\n*")?.lowerBound ?? rest.endIndex)]
    }

    /// Each key has an entry whose first line shows its declared value,
    /// which names its default when it has one, and the upper end of its
    /// range when it is a number.
    static func check(_ keys: [KeyEntry], in section: Substring, table: String) throws {
        try #require(!section.isEmpty && keys.count >= 10, "no section, or no keys to look for")
        for key in keys {
            guard let entry = entry(key.name, in: section) else {
                Issue.record("ssvcd.toml(5) does not describe \(table) \(key.name)")
                continue
            }
            let first = entry.prefix { $0 != "\n" }
            #expect(first == "*\(key.name)* = \(key.form.manual)", "\(table) \(key.name): the page says `\(first)`")
            if let shown = key.defaultText {
                #expect(entry.lowercased().contains("default") && entry.contains(shown), "\(table) \(key.name): the default \(shown) is not named")
            }
            switch key.form {
            case let .integer(range):
                #expect(entry.contains(String(range.upperBound)), "\(table) \(key.name): the range's end \(range.upperBound) is not named")
            case let .number(range):
                #expect(entry.contains(String(Int(range.upperBound))), "\(table) \(key.name): the range's end \(range.upperBound) is not named")
            default:
                break
            }
        }
    }

    @Test("each [daemon] key has its entry under [daemon] KEYS")
    func daemonKeys() throws {
        try Self.check(ConfigurationLoader.daemonKeys, in: Self.section("[daemon] KEYS", until: "APP KEYS"), table: "[daemon]")
    }

    @Test("each app key, the inputs' included, has its entry under APP KEYS")
    func appKeys() throws {
        try Self.check(ConfigurationLoader.appKeys, in: Self.section("APP KEYS", until: "HOOKS"), table: "the app key")
    }

    @Test("a key's declared default is the value the loader takes when the key is not set")
    func defaultsAreTheLoaders() throws {
        let reader = TableReader(ConfigTable(), file: "test.toml", key: nil)
        #expect(try reader.value(AppKeys.format) == .ssvc)
        #expect(try reader.value(AppKeys.schedule) == .daily)
        #expect(try reader.value(DaemonKeys.timeoutSeconds) == 30)
        #expect(try reader.value(AdvisoryKeys.maxAgeDays) == AdvisorySettings.defaultMaxAgeDays)
        let daemon = try ConfigurationLoader.daemonSettings(ConfigTable(), file: "/nonexistent/ssvcd.toml", environment: [:])
        #expect(daemon.timeoutSeconds == DaemonKeys.timeoutSeconds.defaultValue)
        #expect(daemon.maxResponseBytes == DaemonKeys.maxResponseBytes.defaultValue)
        #expect(daemon.idleTimeoutSeconds == DaemonKeys.idleTimeoutSeconds.defaultValue)
        #expect(daemon.appsDirectory == DaemonKeys.appsDirectory.defaultValue)
        #expect(daemon.hooksDirectory == DaemonKeys.hooksDirectory.defaultValue)
        #expect(daemon.socketPath == DaemonKeys.socket.defaultValue)
        let error = #expect(throws: ConfigurationError.self) { try reader.value(AppKeys.url) }
        #expect(error?.description.contains("url: missing") == true, "\(error?.description ?? "none")")
    }
}
