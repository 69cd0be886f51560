import Testing
import SSVCCore

/// Malformed and hostile input is refused with a clear error: no crash, no
/// trap, no hang.
@Suite("TOML: hostile input")
struct TOMLHostileInputTests {
    private func error(_ bytes: [UInt8]) -> String {
        do {
            let table = try TOMLParser().parse(bytes)
            return "accepted: \(table.taggedJSON)"
        } catch {
            return error.description
        }
    }

    private func error(_ text: String) -> String { error(Array(text.utf8)) }

    @Test("documents cut off inside a header, array or inline table")
    func truncated() {
        #expect(error("[") == "1:2: expected a key, found the end of the input")
        #expect(error("a=[") == "1:4: expected a value, found the end of the input")
        #expect(error("a={") == "1:4: expected a key, found the end of the input")
        #expect(error("a=") == "1:3: expected a value, found the end of the input")
        #expect(error("a") == "1:2: expected '=' after a key, found the end of the input")
        #expect(error("a=\"\"\"") == "1:3: unterminated multi-line string: expected '\"\"\"' to close it")
        #expect(error("[[a]") == "1:5: expected ']]' to close the header, found the end of the input")
    }

    @Test("a megabyte of '[' stops at the depth limit")
    func manyBrackets() {
        #expect(error(String(repeating: "[", count: 1_000_000)) == "1:3: expected a key, found '['")
        #expect(error("a = " + String(repeating: "[", count: 1_000_000)) == "1:105: tables and arrays nest more than 100 deep")
        #expect(error("a = " + String(repeating: "{b=", count: 1_000_000)).hasSuffix("tables and arrays nest more than 100 deep"))
    }

    @Test("NUL bytes are refused wherever they are")
    func nul() {
        #expect(error([0]) == "1:1: control character U+0000 is not allowed; in a string write it as an escape")
        #expect(error(Array("a = \"x".utf8) + [0] + Array("\"".utf8)) == "1:7: control character U+0000 is not allowed; in a string write it as an escape")
        #expect(error(Array("# c".utf8) + [0]) == "1:4: control character U+0000 is not allowed; in a string write it as an escape")
    }

    @Test("invalid UTF-8 is refused at the first bad byte")
    func invalidUTF8() {
        #expect(error([0x61, 0x20, 0x3D, 0x20, 0x22, 0xFF, 0x22]) == "1:6: invalid UTF-8: byte 0xFF cannot start a character")
        #expect(error(Array("a = \"".utf8) + [0xC3]) == "1:6: invalid UTF-8: the character starting with byte 0xC3 is cut short or malformed")
        #expect(error(Array("# ".utf8) + [0xED, 0xA0, 0x80]) == "1:3: invalid UTF-8: bytes 0xED 0xA0 encode a UTF-16 surrogate (U+D800 to U+DFFF), which is no character")
        #expect(error(Array("# ".utf8) + [0xC0, 0xAF]).contains("invalid UTF-8"))
        #expect(error(Array("# ".utf8) + [0xF4, 0x90, 0x80, 0x80]).contains("invalid UTF-8"))
    }

    @Test("a carriage return alone is refused; CRLF is a newline")
    func loneCR() {
        #expect(error("a = 1\rb = 2") == "1:6: a carriage return must be followed by a line feed")
        #expect(error("a = 1\r") == "1:6: a carriage return must be followed by a line feed")
        #expect(error("a = 1\r\nb = 2") == "accepted: {\"a\":{\"type\":\"integer\",\"value\":\"1\"},\"b\":{\"type\":\"integer\",\"value\":\"2\"}}")
    }

    @Test("a byte order mark is allowed at the start only")
    func byteOrderMark() {
        #expect(error([0xEF, 0xBB, 0xBF] + Array("a = 1".utf8)) == "accepted: {\"a\":{\"type\":\"integer\",\"value\":\"1\"}}")
        #expect(error([0xEF, 0xBB, 0xBF] + Array("a 1".utf8)) == "1:3: expected '=' after a key, found '1'")
        #expect(error(Array("a = 1\n".utf8) + [0xEF, 0xBB, 0xBF]) == "2:1: expected a key, found '\\u{FEFF}' (U+FEFF)")
    }

    @Test("overlong numbers are refused or read, never trapped")
    func overlongNumbers() throws {
        let digits = String(repeating: "9", count: 100_000)
        #expect(error("a = \(digits)") == "1:5: integer '9999999999999999999999999999999999999999…' does not fit in 64 bits")
        #expect(error("a = -\(digits)").hasSuffix("does not fit in 64 bits"))
        #expect(error("a = 1e\(digits)").hasSuffix("is too large for a 64-bit float"))
        #expect(try TOMLParser().parse("a = 0.\(digits)")["a"] == .double(1.0))
        #expect(try TOMLParser().parse("a = 1e-\(digits)")["a"] == .double(0))
        #expect(error("a = 0x" + String(repeating: "F", count: 100_000)).hasSuffix("does not fit in 64 bits"))
    }

    @Test("deep dotted keys and headers are refused at the depth limit, not recursed into")
    func deepKeys() {
        let key = Array(repeating: "a", count: 200_000).joined(separator: ".")
        #expect(error(key + " = 1").hasSuffix("tables and arrays nest more than 100 deep"))
        #expect(error("[" + key + "]").hasSuffix("tables and arrays nest more than 100 deep"))
        #expect(error("a = {" + key + " = 1}").hasSuffix("tables and arrays nest more than 100 deep"))
    }

    @Test("every prefix of a document is either read or refused")
    func prefixes() {
        let document = """
            # comment
            title = "TOML \\u00E9 \\U0001F600"
            [owner]
            dob = 1979-05-27T07:32:00-08:00
            nums = [ 1, 0x1F, 0o7, 0b1, -2_000, +3.5e-2, inf, -nan ]
            [[products]]
            name = { first = 'a', "last" = \"\"\"b\\
              c\"\"\" }
            when = 1979-05-27 07:32:00.999
            """
        let bytes = Array(document.utf8)
        for end in 0...bytes.count {
            _ = try? TOMLParser().parse(bytes[0..<end])
        }
    }
}
