import SSVCCore
import Testing

@Suite("trimming: white space off both ends, once for the whole package")
struct TrimmingTests {
    @Test("only the named characters, only at the ends", arguments: [
        (" \t1.4.2\r", " \t\r", "1.4.2"),
        ("a b", " ", "a b"),
        (" \t ", " \t", ""),
        ("", " ", ""),
        ("x\n", " ", "x\n"),
    ])
    func trims(text: String, characters: String, expected: String) {
        #expect(text.trimming(characters) == expected)
        #expect(text[...].trimming(characters) == expected)
    }
}
