import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Testing

@Suite("unknown keys: the closest known one")
struct KeySuggestionTests {
    @Test("a typo within two edits gets a suggestion; anything else, none", arguments: [
        ("shedule", "schedule"), ("timeout-second", "timeout-seconds"), ("URL", "url"), ("x", nil), ("", nil), ("bogus", nil),
    ] as [(String, String?)])
    func suggestion(typed: String, expected: String?) {
        #expect(KeyLocator.suggestion(for: typed, among: (ConfigurationLoader.appKeys + ConfigurationLoader.daemonKeys).map(\.name)) == expected)
    }

    @Test("a [daemon] key's error names its line in the main file (found by attacking the loader)", arguments: [
        ("# the daemon\n[daemon]\nstate-dir = \"/x\"\n\ntimeout-seconds = nan\n", "daemon.timeout-seconds: must be from 0.001 to 3600, found nan (line 5)"),
        ("[daemon]\nbogus = 1\n[[app]]\nname = \"a\"\n", "daemon.bogus: unknown key (line 2)"),
        ("[daemon]\nproxy.x = 1\n", "(line 2)"),
        // CRLF ends a TOML line too; it was one line to the locator.
        ("[daemon]\r\nstate-dir = \"/x\"\r\n\r\ntimeout-seconds = 0\r\n", "found 0 (line 4)"),
        ("[daemon]\r\n[[app]]\r\nname = \"a\"\r\nurl = \"https://h/\"\r\nbogus = 1\r\n", "app.bogus: unknown key ([[app]] 'a', line 5)"),
        // A byte order mark, which the parser passes over, hid the first
        // line's header from the locator.
        ("\u{FEFF}[daemon]\nbogus = 1\n", "daemon.bogus: unknown key (line 2)"),
        ("\u{FEFF}[[app]]\nname = \"a\"\nurl = \"https://h/\"\nbogus = 1\n[[app]]\nname = \"b\"\n", "app.bogus: unknown key ([[app]] 'a', line 4)"),
    ])
    func daemonKeyLine(text: String, shown: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-daemon-line-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("ssvcd.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(.init(mainFile: path), environment: [:]) }
        #expect(error?.description.hasSuffix(shown) == true, "\(error?.description ?? "loaded")")
    }

    @Test("edit distances, empty strings included")
    func distance() {
        #expect(KeyLocator.distance("", "") == 0)
        #expect(KeyLocator.distance("", "abc") == 3)
        #expect(KeyLocator.distance("kitten", "sitting") == 3)
    }
}
