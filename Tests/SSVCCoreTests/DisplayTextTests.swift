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

    /// Every character that must never reach a terminal raw, with the
    /// escape it is shown as: C0, DEL, C1, the Arabic letter mark, the
    /// left-to-right and right-to-left marks, embeddings and overrides,
    /// isolates, and the line and paragraph separators. Written out by
    /// hand, not taken from `DisplayText.isControl`.
    static let mustEscape: [(UInt32, String)] = [
        (0x0000, #"\x00"#), (0x0001, #"\x01"#), (0x0002, #"\x02"#), (0x0003, #"\x03"#), (0x0004, #"\x04"#), (0x0005, #"\x05"#),
        (0x0006, #"\x06"#), (0x0007, #"\x07"#), (0x0008, #"\x08"#), (0x0009, #"\t"#), (0x000A, #"\n"#), (0x000B, #"\x0b"#),
        (0x000C, #"\x0c"#), (0x000D, #"\r"#), (0x000E, #"\x0e"#), (0x000F, #"\x0f"#), (0x0010, #"\x10"#), (0x0011, #"\x11"#),
        (0x0012, #"\x12"#), (0x0013, #"\x13"#), (0x0014, #"\x14"#), (0x0015, #"\x15"#), (0x0016, #"\x16"#), (0x0017, #"\x17"#),
        (0x0018, #"\x18"#), (0x0019, #"\x19"#), (0x001A, #"\x1a"#), (0x001B, #"\x1b"#), (0x001C, #"\x1c"#), (0x001D, #"\x1d"#),
        (0x001E, #"\x1e"#), (0x001F, #"\x1f"#), (0x007F, #"\x7f"#), (0x0080, #"\x80"#), (0x0081, #"\x81"#), (0x0082, #"\x82"#),
        (0x0083, #"\x83"#), (0x0084, #"\x84"#), (0x0085, #"\x85"#), (0x0086, #"\x86"#), (0x0087, #"\x87"#), (0x0088, #"\x88"#),
        (0x0089, #"\x89"#), (0x008A, #"\x8a"#), (0x008B, #"\x8b"#), (0x008C, #"\x8c"#), (0x008D, #"\x8d"#), (0x008E, #"\x8e"#),
        (0x008F, #"\x8f"#), (0x0090, #"\x90"#), (0x0091, #"\x91"#), (0x0092, #"\x92"#), (0x0093, #"\x93"#), (0x0094, #"\x94"#),
        (0x0095, #"\x95"#), (0x0096, #"\x96"#), (0x0097, #"\x97"#), (0x0098, #"\x98"#), (0x0099, #"\x99"#), (0x009A, #"\x9a"#),
        (0x009B, #"\x9b"#), (0x009C, #"\x9c"#), (0x009D, #"\x9d"#), (0x009E, #"\x9e"#), (0x009F, #"\x9f"#), (0x061C, #"\u{61C}"#),
        (0x200E, #"\u{200E}"#), (0x200F, #"\u{200F}"#), (0x202A, #"\u{202A}"#), (0x202B, #"\u{202B}"#), (0x202C, #"\u{202C}"#), (0x202D, #"\u{202D}"#),
        (0x202E, #"\u{202E}"#), (0x2066, #"\u{2066}"#), (0x2067, #"\u{2067}"#), (0x2068, #"\u{2068}"#), (0x2069, #"\u{2069}"#), (0x2028, #"\u{2028}"#),
        (0x2029, #"\u{2029}"#),
    ]

    @Test("each character that must be escaped is shown as its escape", arguments: mustEscape)
    func eachEscaped(value: UInt32, shown: String) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(DisplayText.escaped("a" + String(scalar) + "b") == "a" + shown + "b")
        #expect(DisplayText.isControl(scalar))
    }

    /// The format characters (Unicode category Cf) up to U+3000 that are
    /// not controls above: invisible, so shown escaped too (issue 52).
    /// Written out by hand from the Unicode Character Database.
    static let formats: Set<UInt32> = Set(
        [0x00AD, 0x061C, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x180E] + Array(0x0600...0x0605) + Array(0x200B...0x200F)
            + Array(0x202A...0x202E) + Array(0x2060...0x2064) + Array(0x2066...0x206F)
    )

    @Test("every other character up to U+3000 comes back as it is, the backslash doubled; past the limit, cut")
    func othersKept() {
        let listed = Set(Self.mustEscape.map(\.0))
        #expect(listed.count == 79)
        for value in UInt32(0)...0x3000 where !listed.contains(value) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let hex = String(value, radix: 16, uppercase: true)
            let expected = Self.formats.contains(value) ? "\\u{\(hex)}" : scalar == "\\" ? "\\\\" : String(scalar)
            #expect(DisplayText.escaped(String(scalar)) == expected, "U+\(String(value, radix: 16, uppercase: true))")
        }
        #expect(DisplayText.escaped(String(repeating: "a", count: 600)) == String(repeating: "a", count: 512) + "...")
    }

    @Test("version strings: at most 256 bytes, no control or bidirectional character")
    func versions() {
        #expect(DisplayText.versionProblem("2.0.1-rc.1+build.5") == nil)
        #expect(DisplayText.versionProblem(String(repeating: "9", count: 256)) == nil)
        #expect(DisplayText.versionProblem(String(repeating: "9", count: 257)) == "longer than 256 bytes (257)")
        #expect(DisplayText.versionProblem("2.0\u{1B}]0;PWNED\u{7}") == "holds the control character U+001B")
        #expect(DisplayText.versionProblem("2.0\u{202E}") == "holds the control character U+202E")
        // Invisible, blank or not ASCII: a version is printable ASCII without blanks (issue 52).
        for invisible in ["\u{200B}", "\u{AD}", "\u{2060}", "\u{FEFF}", "\u{E0041}"] {
            let hex = String(invisible.unicodeScalars.first!.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            #expect(DisplayText.versionProblem("1.0" + invisible) == "holds \(code), not printable ASCII: a version is printable ASCII without blanks")
            #expect(DisplayText.escaped("1.0" + invisible) == "1.0\\u{\(hex)}", "shown escaped, never invisible")
        }
        #expect(DisplayText.versionProblem("1.5 ") == "holds a blank (U+0020): a version is printable ASCII without blanks")
        #expect(DisplayText.versionProblem("9\u{2024}9")?.contains("U+2024") == true)
        #expect(DisplayText.versionProblem("1.0~rc1+b:2_x") == nil)
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
        #expect(stored == String(repeating: "ü", count: 2046) + "…", "4,095 bytes: no ü cut in half, none past 4,096")
    }
}
