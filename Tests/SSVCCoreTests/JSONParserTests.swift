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

    @Test("members(of:) lists each key with its value's text, unbuilt; forEachMember reads a nested object by its place (the state file's apps)")
    func membersInPlace() throws {
        let text = Array(#" {"schema": 1, "apps": {"a": {"x": [1, {"y": "\u00e9\""}]}, "b": 5, "a": null}} "#.utf8)
        let root = try JSONParser.members(of: text)
        #expect(root.map(\.key) == ["schema", "apps"])
        #expect(String(decoding: text[root[0].value], as: UTF8.self) == "1")
        var apps: [(key: String, value: Range<Int>)] = []
        try JSONParser.forEachMember(of: text, in: root[1].value) { apps.append(($0, $1)) }
        #expect(apps.map(\.key) == ["a", "b", "a"], "a key given twice is listed twice: the caller decides")
        #expect(String(decoding: text[apps[0].value], as: UTF8.self) == #"{"x": [1, {"y": "\u00e9\""}]}"#, "an escaped quote ends no string")
        #expect(try JSONParser.parse(text, in: apps[0].value) == .object([("x", .array([.number("1"), .object([("y", .string("é\""))])]))]))
        let cut = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text, in: apps[0].value.dropLast(1)) }
        #expect(cut?.message == "unexpected end of document, expected ',' or '}'", "nothing past the range is read")
        #expect(try JSONParser.parse(text, in: apps[1].value) == .number("5"))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.forEachMember(of: text, in: apps[1].value) { _, _ in } }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.members(of: Array("[1]".utf8)) }
    }

    @Test("members(of:) refuses a document whose members cannot be told apart, as parse does", arguments: [
        #"{"a" 1}"#, #"{"a": 1,}"#, #"{"a": 1 "b": 2}"#, #"{"a": 1} {}"#, #"{"a": "abc}"#, #"{"a": [1, 2"#, #"{"a": tru}"#, #"{"a": 01}"#, #"{"a":"#, "{1: 2}",
    ])
    func membersRefuseStructure(document: String) {
        let built = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(document) }
        let skipped = #expect(throws: JSONSyntaxError.self) { try JSONParser.members(of: Array(document.utf8)) }
        #expect(built != nil && skipped != nil)
    }

    @Test("forEachMember delimits values whose strings are damaged or whose nesting is past the bound, for whoever parses them to refuse")
    func membersUnchecked() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let text = Array(#"{"a": [""#.utf8) + [0xFF, 0x01] + Array(#"\x", "}{]"], "b": \#(deep), "c": 3}"#.utf8)
        var places: [(String, Range<Int>)] = []
        try JSONParser.forEachMember(of: text, in: text.indices) { places.append(($0, $1)) }
        #expect(places.map(\.0) == ["a", "b", "c"])
        #expect(places[1].1.count == deep.utf8.count)
        #expect(try JSONParser.parse(text, in: places[2].1) == .number("3"))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text, in: places[0].1) }
        let nested = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text, in: places[1].1) }
        #expect(nested?.message == "nesting deeper than 128 levels")
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

    @Test("a memory limit refuses a document whose tree would pass it, as it is read, and names it; within it, the same tree")
    func memoryLimit() throws {
        // 1,000 values of 48 bytes each, 17 strings of 16 bytes and more of 64.
        let small = "[" + Array(repeating: "{}", count: 999).joined(separator: ",") + "]"
        #expect(try JSONParser.parse(Array(small.utf8), memoryLimit: 1_000 * JSONParser.valueCost) == (try JSONParser.parse(small)))
        do throws(JSONSyntaxError) {
            _ = try JSONParser.parse(Array(small.utf8), memoryLimit: 999 * JSONParser.valueCost)
            Issue.record("a tree of 1,000 values read within 999 values' memory")
        } catch {
            #expect(error.tooLarge)
            #expect(error.description == "refused: the document would take more than 47952 bytes of memory once read at line 1, column 2996")
        }
        // A string's heap storage counts (a 16-byte one is not inline), an inline one's does not.
        let strings = #"["aaaaaaaaaaaaaaaa","bbbbbbbbbbbbbbb"]"#
        let cost = 3 * JSONParser.valueCost + JSONParser.textCost(16)
        #expect(JSONParser.textCost(15) == 0 && JSONParser.textCost(16) == 64)
        #expect((try? JSONParser.parse(Array(strings.utf8), memoryLimit: cost)) != nil)
        #expect((try? JSONParser.parse(Array(strings.utf8), memoryLimit: cost - 1)) == nil)
        // Past 32 members, an object's keys count three times as much: its arrays grow by doubling.
        let object = "{" + (0...32).map { "\"k\($0)\":0" }.joined(separator: ",") + "}"
        let objectCost = 34 * JSONParser.valueCost + 32 * 32 + 96
        #expect((try? JSONParser.parse(Array(object.utf8), memoryLimit: objectCost)) != nil)
        #expect((try? JSONParser.parse(Array(object.utf8), memoryLimit: objectCost - 1)) == nil)
        // A syntax error is not "too large".
        do throws(JSONSyntaxError) { _ = try JSONParser.parse(Array("[1,".utf8), memoryLimit: 1 << 20) } catch { #expect(!error.tooLarge) }
    }

    @Test("16 MiB of [1,1,…] is refused within OSV's 48 MiB, not read into a tree of several times its size")
    func largeArrayRefused() async {
        let error = await offPool { () -> JSONSyntaxError? in
            var text = [UInt8](repeating: UInt8(ascii: "1"), count: 16 << 20)
            text[0] = UInt8(ascii: "[")
            for index in stride(from: 2, to: text.count - 2, by: 2) { text[index] = UInt8(ascii: ",") }
            text[text.count - 1] = UInt8(ascii: "]")
            do throws(JSONSyntaxError) { _ = try JSONParser.parse(text, memoryLimit: OSVRecord.maximumTreeBytes) } catch { return error }
            return nil
        }
        #expect(error?.tooLarge == true)
        #expect(error?.message == "the document would take more than 48 MiB of memory once read")
    }

    @Test("a value holds its scalar inline, not in a heap box of its own (an indirect enum is one pointer)")
    func valuesInline() {
        // 16 MiB of [1,1,…] took 483 MiB as boxes (issue 51); JSONParser.valueCost assumes a slot of at most 24 bytes.
        #expect(MemoryLayout<JSONValue>.size > MemoryLayout<Int>.size)
        #expect(MemoryLayout<JSONValue>.stride <= 24)
        #expect(MemoryLayout<(key: String, value: JSONValue)>.stride <= 40)
    }
}
