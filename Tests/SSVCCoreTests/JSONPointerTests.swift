import Foundation
@testable import SSVCCore
import Testing

@Suite("JSON Pointer (RFC 6901)")
struct JSONPointerTests {
    /// RFC 6901, section 5.
    static var document: JSONValue { try! JSONParser.parse(Array(#"""
        {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
        """#.utf8)) }

    @Test("the RFC's examples resolve to the RFC's values", arguments: [
        ("/foo", #"["bar","baz"]"#), ("/foo/0", #""bar""#), ("/", "0"), ("/a~1b", "1"), ("/c%d", "2"), ("/e^f", "3"),
        ("/g|h", "4"), ("/i\\j", "5"), ("/k\"l", "6"), ("/ ", "7"), ("/m~0n", "8"),
    ])
    func rfcExamples(pointer: String, expected: String) throws {
        let value = try #require(try JSONPointer(parsing: pointer).resolve(Self.document))
        #expect(value == (try JSONParser.parse(Array(expected.utf8))))
    }

    @Test("the empty pointer is the whole document")
    func whole() throws {
        #expect(try JSONPointer(parsing: "").resolve(Self.document) == Self.document)
    }

    @Test("nothing there: absent members, indices past the end, leading zeros, '-', through a scalar, null", arguments: [
        "/nope", "/foo/2", "/foo/01", "/foo/-", "/foo/0/x", "/foo/+1", "/foo/99999999999999999999", "/ /x",
    ])
    func nothing(pointer: String) throws {
        #expect(try JSONPointer(parsing: pointer).resolve(Self.document) == nil)
        #expect(try JSONPointer(parsing: "/n").resolve(.object([("n", .null)])) == nil)
    }

    @Test("text that is not a pointer is refused", arguments: ["info/version", "/a~2b", "/a~", "~"])
    func syntax(text: String) {
        #expect(throws: JSONPointer.SyntaxError.self) { try JSONPointer(parsing: text) }
    }
}
