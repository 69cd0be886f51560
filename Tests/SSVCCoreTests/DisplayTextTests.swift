import SSVCCore
import Testing

@Suite("server text shown to people: escaped, bounded; version strings held to a shape")
struct DisplayTextTests {
    @Test("control characters, DEL, C1, bidirectional controls and backslashes are shown as escapes", arguments: [
        ("2.0\u{1B}[2J", "2.0\\x1b[2J"),
        ("a\r\nSSVC OK - all 3 apps up to date", "a\\r\\nSSVC OK - all 3 apps up to date"),
        ("x\u{7}\u{0}y", "x\\x07\\x00y"),
        ("del\u{7F} c1\u{9B}", "del\\x7f c1\\x9b"),
        ("abc\u{202E}fed", "abc\\u{202E}fed"),
        ("tab\there", "tab\\there"),
        ("C:\\path", "C:\\\\path"),
        ("Grüße 2.0 ✓", "Grüße 2.0 ✓"),
    ])
    func escaped(text: String, shown: String) {
        #expect(DisplayText.escaped(text) == shown)
    }

    @Test("an escaped text holds no control character at all, and is cut past its limit")
    func noControlsLeft() {
        let hostile = (0...0x3000).compactMap(Unicode.Scalar.init).map(String.init).joined()
        let shown = DisplayText.escaped(hostile, limit: .max)
        #expect(!shown.unicodeScalars.contains(where: DisplayText.isControl))
        #expect(DisplayText.escaped(String(repeating: "a", count: 600)) == String(repeating: "a", count: 512) + "...")
    }

    @Test("version strings: at most 256 bytes, no control or bidirectional character")
    func versions() {
        #expect(DisplayText.versionProblem("2.0.1-rc.1+build.5") == nil)
        #expect(DisplayText.versionProblem(String(repeating: "9", count: 256)) == nil)
        #expect(DisplayText.versionProblem(String(repeating: "9", count: 257)) == "longer than 256 bytes (257)")
        #expect(DisplayText.versionProblem("2.0\u{1B}]0;PWNED\u{7}") == "holds the control character U+001B")
        #expect(DisplayText.versionProblem("2.0\u{202E}") == "holds the control character U+202E")
    }

    @Test("a document whose version holds a control character is rejected naming the key, in every format")
    func rejected() throws {
        let hostile = #""2.0\u001b[2J\r\nSSVC OK""#
        let context = EvaluationContext(
            running: RunningVersion(key: "1.0", configuredNumber: nil), appID: "a", locale: LocaleSettings(language: "en", country: ""),
            machine: MachineFacts(osVersion: "12", model: "m"), properties: [:], now: .now, messageRecords: [:]
        )
        let documents: [(ResponseFormat, String, String)] = [
            (.ssvc, #"{"SSVCLatestVersionKey":\#(hostile)}"#, "SSVCLatestVersionKey: not a version string"),
            (.itunes, #"{"resultCount":1,"results":[{"version":\#(hostile)}]}"#, "results[0].version: not a version string"),
            (.turkcell, #"{"packageName":"a","updates":[{"targetVersionName":\#(hostile),"targetPackageUrl":"https://x"}]}"#, "updates[0].targetVersionName: not a version string"),
        ]
        for (format, body, problem) in documents {
            let error = #expect(throws: ResponseError.self) { try format.evaluate(Array(body.utf8), context: context) }
            #expect(error?.description.contains(problem) == true, "\(format): \(error?.description ?? "accepted")")
        }
    }

    @Test("stored texts are cut on a character boundary")
    func cut() {
        #expect(DisplayText.cut("short") == "short")
        let long = String(repeating: "ü", count: 3000)
        let stored = DisplayText.cut(long)
        #expect(stored.utf8.count <= DisplayText.maximumStoredBytes)
        #expect(stored.hasSuffix("…"))
    }
}
