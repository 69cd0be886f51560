import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("JSON reader")
struct JSONParserTests {
    @Test("reads every kind of value and keeps object keys in document order")
    func readsValues() throws {
        let value = try JSONParser.parse(#" {"z": 1, "a": [true, false, null], "m": "x\u00e9\n", "n": -1.5e3} "#)
        guard case let .object(members) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map(\.key) == ["z", "a", "m", "n"])
        #expect(value["z"] == .number("1"))
        #expect(value["a"] == .array([.bool(true), .bool(false), .null]))
        #expect(value["m"] == .string("xé\n"))
        #expect(value["n"] == .number("-1.5e3"))
    }

    @Test("keeps numbers exactly as written, beyond any integer type")
    func exactNumbers() throws {
        #expect(try JSONParser.parse("18446744073709551616") == .number("18446744073709551616"))
        #expect(try JSONParser.parse("0.10") == .number("0.10"))
    }

    @Test("decodes surrogate pairs and rejects unpaired ones")
    func surrogates() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(#""\ud83d""#) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(#""\ude00""#) }
    }

    @Test("names the line and column of a syntax error")
    func locatesErrors() {
        let error = #expect(throws: JSONSyntaxError.self) {
            try JSONParser.parse("{\n  \"a\": 1,\n  \"b\" 2\n}")
        }
        #expect(error?.line == 3)
        #expect(error?.column == 7)
        #expect(error?.message == "unexpected '2', expected ':' after key \"b\"")
    }

    @Test("rejects malformed documents", arguments: [
        ("", "the document is empty"),
        ("   \n", "the document is only white space"),
        ("{", "unexpected end of document, expected a string key"),
        ("[1,]", "unexpected ']', expected a value"),
        ("{\"a\":1,}", "unexpected '}', expected a string key"),
        ("01", "leading zero in a number"),
        ("1.", "a number needs digits after '.'"),
        ("-", "a number needs digits"),
        ("1e", "a number needs digits in its exponent"),
        ("tru", "unexpected 't', expected a value"),
        ("\"a\u{01}\"", "control character 0x1 in a string (escape it)"),
        ("\"\\x\"", "invalid escape \\'x'"),
        ("\"abc", "unterminated string"),
        ("{} {}", "unexpected '{' after the document"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""),
        ("NaN", "unexpected 'N', expected a value"),
    ])
    func rejects(document: String, message: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(document) }
        #expect(error?.message == message)
    }

    @Test("rejects invalid UTF-8 inside strings")
    func invalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test("refuses 10,000 levels of nesting with an error, not a crash")
    func deepNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        #expect(error?.message == "nesting deeper than 128 levels")
        let objects = String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(objects) }
    }

    @Test("accepts 128 levels of nesting, refuses 129")
    func nestingAtLimit() throws {
        func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        _ = try JSONParser.parse(nested(128))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(nested(129)) }
    }

    @Test("10 MiB of white space is an error naming it")
    func whitespaceOnly() async {
        // 10 MiB scanned (seconds under ThreadSanitizer): off the pool.
        let error = await offPool { () -> JSONSyntaxError? in
            do throws(JSONSyntaxError) { _ = try JSONParser.parse([UInt8](repeating: 0x20, count: 10 << 20)) } catch { return error }
            return nil
        }
        #expect(error?.message == "the document is only white space")
    }
}
