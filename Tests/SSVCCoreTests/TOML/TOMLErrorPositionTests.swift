import Testing
import SSVCCore

/// Each refusal names a line, a column counted in Unicode scalars, and what was expected.
@Suite("TOML: error positions")
struct TOMLErrorPositionTests {
    private func error(_ text: String) -> String {
        do {
            let table = try TOMLParser().parse(text)
            return "accepted: \(table.taggedJSON)"
        } catch {
            return error.description
        }
    }

    @Test("a key without '=' is refused where the '=' should be")
    func missingEquals() {
        #expect(error("a = 1\nb 2") == "2:3: expected '=' after a key, found '2'")
    }

    @Test("an unterminated string is refused at the end of its line")
    func unterminatedString() {
        #expect(error("a = \"abc\nb = 1") == "1:9: unterminated string: expected '\"' before a newline")
    }

    @Test("a table defined twice is refused at the second header")
    func tableTwice() {
        #expect(error("[a]\nx = 1\n[a]") == "3:1: table 'a' is defined more than once")
    }

    @Test("a duplicate key is refused at the second key, dotted parts shown")
    func duplicateKey() {
        #expect(error("a = 1\na = 2") == "2:1: duplicate key 'a'")
        #expect(error("x.y = 1\n x . y = 2") == "2:6: duplicate key 'x.y'")
    }

    @Test("an impossible date is refused with the reason")
    func impossibleDate() {
        #expect(error("x = 2006-02-29") == "1:5: invalid date or time '2006-02-29': day 29 is out of range for the month")
        #expect(error("x = 24:00:00") == "1:5: invalid date or time '24:00:00': hour 24 is out of range")
    }

    @Test("columns count Unicode scalars, not bytes")
    func scalarColumns() {
        #expect(error("s = \"éé\u{01}\"") == "1:8: control character U+0001 is not allowed; in a string write it as an escape")
        #expect(error("é = 1") == "1:1: expected a key, found 'é' (U+00E9)")
        // A no-break space looks like a space: its code point says what it is (issue 52).
        #expect(error("a =\u{A0}1") == "1:4: expected a value, found '\u{A0}' (U+00A0)")
    }

    @Test("an error inside a multi-line array names the element's line")
    func multilineArray() {
        #expect(error("a = [\n  1,\n  2,,\n]") == "3:5: expected a value, found ','")
    }

    @Test("an integer past Int64 is refused, not wrapped")
    func overflow() {
        #expect(error("a = 9223372036854775808") == "1:5: integer '9223372036854775808' does not fit in 64 bits")
        #expect(error("a = 0xFFFFFFFFFFFFFFFFF") == "1:5: integer '0xFFFFFFFFFFFFFFFFF' does not fit in 64 bits")
    }

    @Test("control and bidirectional characters in keys are escaped in messages")
    func escapedKeys() {
        #expect(error("\"\u{202E}x\" = 1\n\"\u{202E}x\" = 2") == "2:1: duplicate key '\"\\u{202E}x\"'")
        #expect(error("\"\\u0007\" = 1\n\"\\u0007\" = 2") == "2:1: duplicate key '\"\\u0007\"'")
    }

    @Test("dotted keys cannot reopen a table that has its own header")
    func dottedIntoHeader() {
        #expect(error("[a.b]\n[a]\nb.c = 1") == "3:1: cannot add to table 'b' with dotted keys: it has its own header")
    }

    @Test("the error's description is line:column: message")
    func description() {
        #expect(TOMLError(line: 3, column: 14, message: "expected '=' after a key").description == "3:14: expected '=' after a key")
    }
}
