import Testing
@testable import SSVCCore

/// What each kind of TOML value becomes.
@Suite("TOML: values")
struct TOMLValueTests {
    private func value(_ text: String) throws -> ConfigValue? {
        try TOMLParser().parse("v = " + text)["v"]
    }

    @Test("integers cover Int64 in every base")
    func integers() throws {
        #expect(try value("9223372036854775807") == .int(Int.max))
        #expect(try value("-9223372036854775808") == .int(Int.min))
        #expect(try value("0x7FFF_FFFF_FFFF_FFFF") == .int(Int.max))
        #expect(try value("0o777") == .int(511))
        #expect(try value("0b1010") == .int(10))
        #expect(try value("+0") == .int(0))
        #expect(try value("-0") == .int(0))
        #expect(throws: TOMLError.self) { try value("0x8000000000000000") }
        #expect(throws: TOMLError.self) { try value("1__0") }
    }

    @Test("floats read every form, including inf and nan with signs")
    func floats() throws {
        #expect(try value("6.626e-34") == .double(6.626e-34))
        #expect(try value("1_000.5") == .double(1000.5))
        #expect(try value("1e06") == .double(1e6))
        #expect(try value("-inf") == .double(-.infinity))
        #expect(try value("+inf") == .double(.infinity))
        #expect(try value("-nan")?.double?.isNaN == true)
        #expect(try value("-0.0")?.double?.sign == .minus)
    }

    @Test("strings take every escape and refuse surrogates and out-of-range scalars")
    func strings() throws {
        #expect(try value(#""\b\t\n\f\r\"\\\u00e9\U0001F600""#) == .string("\u{8}\t\n\u{C}\r\"\\é😀"))
        #expect(try value("'C:\\path\\'") == .string("C:\\path\\"))
        #expect(try value("\"\"\"\nline\r\nnext \\\n   joined\"\"\"") == .string("line\nnext joined"))
        #expect(try value("'''\n a ''b'' '''") == .string(" a ''b'' "))
        #expect(try value("\"\"\"\"\"\"\"") == .string("\""))
        #expect(throws: TOMLError.self) { try value(#""\uD800""#) }
        #expect(throws: TOMLError.self) { try value(#""\U00110000""#) }
        #expect(throws: TOMLError.self) { try value(#""\e""#) }
    }

    @Test("dates and times keep their text and are checked against the calendar")
    func dates() throws {
        #expect(try value("2024-02-29") == .other(type: "date-local", text: "2024-02-29"))
        #expect(try value("1990-12-31T23:59:60Z") == .other(type: "datetime", text: "1990-12-31T23:59:60Z"))
        #expect(try value("1979-05-27 07:32:00.5-00:00") == .other(type: "datetime", text: "1979-05-27 07:32:00.5-00:00"))
        #expect(try value("1979-05-27T07:32:00") == .other(type: "datetime-local", text: "1979-05-27T07:32:00"))
        #expect(try value("07:32:00.999999") == .other(type: "time-local", text: "07:32:00.999999"))
        #expect(throws: TOMLError.self) { try value("2023-02-29") }
        #expect(throws: TOMLError.self) { try value("1900-02-29") }
        #expect(throws: TOMLError.self) { try value("2023-04-31") }
        #expect(throws: TOMLError.self) { try value("07:60:00") }
        #expect(throws: TOMLError.self) { try value("07:32") }
        #expect(throws: TOMLError.self) { try value("1979-05-27T07:32:00+24:00") }
    }

    @Test("type names are TOML's own words, as the loader's messages say them")
    func typeNames() throws {
        #expect(try value("1")?.type == "integer")
        #expect(try value("1.0")?.type == "float")
        #expect(try value("true")?.type == "boolean")
        #expect(try value("1979-05-27")?.type == "local date")
        #expect(try value("07:32:00")?.type == "local time")
        #expect(try value("1979-05-27T07:32:00")?.type == "local date-time")
        #expect(try value("1979-05-27T07:32:00Z")?.type == "offset date-time")
        #expect(try value("{}")?.type == "table")
        #expect(try value("[]")?.type == "array")
    }

    @Test("tables keep document order and the tagged JSON follows it")
    func order() throws {
        let table = try TOMLParser().parse("z = 1\n[b]\ny = 'x'\n[a]\nx = [1.5, true]\n[b.c]\n")
        #expect(table.members.map(\.key) == ["z", "b", "a"])
        #expect(table.taggedJSON == #"{"z":{"type":"integer","value":"1"},"b":{"y":{"type":"string","value":"x"},"c":{}},"a":{"x":[{"type":"float","value":"1.5"},{"type":"bool","value":"true"}]}}"#)
    }

    @Test("keys are told apart by code point: precomposed and decomposed \u{E9} are two keys, in tables and headers (found by attacking the loader)")
    func keysByCodePoint() throws {
        let table = try TOMLParser().parse("\"\u{E9}\" = 1\n\"e\u{301}\" = 2\n[\"\u{C5}\"]\n[\"\u{212B}\"]\n")
        #expect(table.members.map { Array($0.key.unicodeScalars) } == [["\u{E9}"], ["e", "\u{301}"], ["\u{C5}"], ["\u{212B}"]])
        #expect(throws: TOMLError.self) { try TOMLParser().parse("\"\u{E9}\" = 1\n\"\\u00e9\" = 2\n") }
    }

    @Test(
        "a table of a few keys is scanned, a larger one indexed: both tell keys apart by code point and refuse a duplicate, at every size around the switch",
        arguments: [1, TOMLTableBuilder.scanned - 1, TOMLTableBuilder.scanned, TOMLTableBuilder.scanned + 1, TOMLTableBuilder.scanned + 2, 3 * TOMLTableBuilder.scanned]
    )
    func keysAtEverySize(count: Int) throws {
        let fillers = (0..<count).map { "k\($0) = \($0)\n" }.joined()
        for header in ["", "[t]\n", "[[a]]\n", "u = { "] {
            let close = header == "u = { " ? " }\n" : ""
            func document(_ body: String) -> String {
                header == "u = { " ? header + body.split(separator: "\n").joined(separator: ", ") + close : header + body
            }
            // Precomposed and decomposed é, after the fillers: two keys.
            let table = try TOMLParser().parse(document(fillers + "\"\u{E9}\" = 1\n\"e\u{301}\" = 2\n"))
            let members = header.isEmpty ? table : try #require(table.members.first?.value.table ?? table.members.first?.value.array?.first?.table)
            #expect(members.members.count == count + 2)
            #expect(members["k\(count - 1)"] == .int(count - 1))
            // The first filler again, and é again in another spelling: refused.
            #expect(throws: TOMLError.self) { try TOMLParser().parse(document(fillers + "k0 = 9\n")) }
            #expect(throws: TOMLError.self) { try TOMLParser().parse(document(fillers + "\"\u{E9}\" = 1\n\"\\u00e9\" = 2\n")) }
            // A dotted key through a table the fillers sit beside.
            let dotted = try TOMLParser().parse(document(fillers + "d.x = 1\nd.y = 2\n"))
            let dottedMembers = header.isEmpty ? dotted : try #require(dotted.members.first?.value.table ?? dotted.members.first?.value.array?.first?.table)
            #expect(dottedMembers["d"]?.table?.members.map(\.key) == ["x", "y"])
        }
    }

    @Test("the writer prints dotted keys and inline values that read back the same")
    func writer() throws {
        let text = "a = 1\n[t]\n\"k y\" = \"q\\\"\\u0001\"\n[[arr]]\nx = nan\n[[arr]]\n[e]\n"
        let table = try TOMLParser().parse(text)
        let written = TOMLWriter.write(table)
        #expect(written == "a = 1\nt.\"k y\" = \"q\\\"\\u0001\"\narr = [{ x = nan }, {}]\ne = {}\n")
        #expect(try TOMLParser().parse(written).taggedJSON == table.taggedJSON)
    }
}
