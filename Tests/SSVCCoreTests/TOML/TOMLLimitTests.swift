import SSVCTestSupport
import Testing
@testable import SSVCCore

/// Nesting is bounded and big documents are read in time and memory
/// linear in their size (timings are measured outside the tests).
@Suite("TOML: limits")
struct TOMLLimitTests {
    @Test("arrays nest 100 deep and not 101, the error naming the line")
    func arrayNesting() throws {
        let ok = "x = 1\na = " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        var value = try #require(try TOMLParser().parse(ok)["a"])
        for _ in 1..<100 { value = try #require(value.array?.first) }
        #expect(value.array?.isEmpty == true)
        let deep = "x = 1\na = " + String(repeating: "[", count: 101) + String(repeating: "]", count: 101)
        #expect(throws: TOMLError(line: 2, column: 105, message: "tables and arrays nest more than 100 deep")) {
            try TOMLParser().parse(deep)
        }
    }

    @Test("inline tables nest 100 deep and not 101")
    func inlineNesting() throws {
        let ok = "a = " + String(repeating: "{b = ", count: 99) + "{}" + String(repeating: "}", count: 99)
        _ = try TOMLParser().parse(ok)
        let deep = "a = " + String(repeating: "{b = ", count: 100) + "{}" + String(repeating: "}", count: 100)
        #expect(throws: TOMLError.self) { try TOMLParser().parse(deep) }
    }

    @Test("tables from headers and dotted keys count towards the same depth")
    func tableNesting() throws {
        let parts = (1...100).map { "p\($0)" }.joined(separator: ".")
        _ = try TOMLParser().parse("[\(parts)]\n")
        _ = try TOMLParser().parse("\(parts) = 1\n")
        #expect(throws: TOMLError.self) { try TOMLParser().parse("[\(parts).deeper]\n") }
        #expect(throws: TOMLError.self) { try TOMLParser().parse("[\(parts)]\nx = []\n") }
    }

    @Test("a table with 100,000 keys keeps them all, in order")
    func manyKeys() async throws {
        // A second of work (more under ThreadSanitizer): off the pool, as below.
        let table = try await offPool {
            var text = ""
            for index in 0..<100_000 { text += "k\(index) = \(index)\n" }
            return try TOMLParser().parse(text)
        }
        #expect(table.members.count == 100_000)
        #expect(table.members.last?.key == "k99999")
        #expect(table.members.last?.value == .int(99_999))
    }

    @Test("100,000 [[a]] headers make an array of 100,000 tables")
    func manyArrayTables() async throws {
        let text = String(repeating: "[[a]]\nx = 1\n", count: 100_000)
        let tables = try #require(try await offPool { try TOMLParser().parse(text) }["a"]?.array)
        #expect(tables.count == 100_000)
        #expect(tables.last == .table(ConfigTable([("x", .int(1))])))
    }

    @Test("a key with 10,000 dotted parts is refused at once by default, and read when allowed")
    func longDottedKey() throws {
        let key = (0..<10_000).map { "p\($0)" }.joined(separator: ".")
        #expect(throws: TOMLError(line: 1, column: 391, message: "tables and arrays nest more than 100 deep")) {
            try TOMLParser().parse(key + " = 1\n")
        }
        let table = try TOMLParser(maxDepth: 10_000).parse(key + " = 1\n")
        var current = table
        for index in 0..<9_999 {
            #expect(current.members.count == 1 && current.members[0].key == "p\(index)")
            current = try #require(current.members.first?.value.table)
        }
        #expect(current["p9999"] == .int(1))
    }

    @Test("a 10 MB string is read whole")
    func bigString() async throws {
        let body = String(repeating: "abcdefghij", count: 1_000_000)
        let read = try await offPool {
            try ["s = \"\(body)\"\n", "s = '\(body)'\n", "s = \"\"\"\n\(body)\"\"\"\n"].map { try TOMLParser().parse($0)["s"] }
        }
        #expect(read == [.string(body), .string(body), .string(body)])
    }
}
