/// Quoting shared by the writer, the tagged JSON and the error messages.
enum TOMLText {
    /// `text` between double quotes, read back unchanged by both TOML and JSON:
    /// the two agree on `\b \t \n \f \r \" \\ \uXXXX`. Other control characters
    /// and DEL, which TOML 1.0 refuses raw, are written as `\u00XX`.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0x08: appendEscape("b", to: &out)
            case 0x09: appendEscape("t", to: &out)
            case 0x0A: appendEscape("n", to: &out)
            case 0x0C: appendEscape("f", to: &out)
            case 0x0D: appendEscape("r", to: &out)
            case 0x00..<0x20, 0x7F:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// A key as TOML writes it: bare when it can be, quoted otherwise.
    static func key(_ name: String) -> String {
        isBare(name) ? name : quoted(name)
    }

    /// Whether `name` may be written as a bare key (`A-Za-z0-9_-`, at least one).
    static func isBare(_ name: String) -> Bool {
        !name.utf8.isEmpty && name.utf8.allSatisfy(isBareKeyByte)
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// A dotted key for an error message: at most `limit` characters, with
    /// control and bidirectional characters escaped so a message never
    /// carries them to a terminal.
    static func displayed(_ parts: ArraySlice<String>, limit: Int = 60) -> String {
        var out = ""
        var count = 0
        for (index, part) in parts.enumerated() {
            let written = index == 0 ? key(part) : "." + key(part)
            for scalar in written.unicodeScalars {
                guard count < limit else { return out + "…" }
                out += displayed(scalar)
                count += 1
            }
        }
        return out
    }

    /// One scalar as shown in a message: itself, or `\u{XXXX}` when it could
    /// move the cursor, ring, or reorder the text around it.
    static func displayed(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069, 0xFEFF:
            "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default:
            // Invisible (a format character: U+200B, U+00AD, ...): named too.
            DisplayText.isFormat(scalar) ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
        }
    }

    private static func appendEscape(_ letter: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: letter))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}

extension TOMLText {
    /// A float as TOML and toml-test read it: Swift's shortest text that
    /// reads back to the same value, and `inf`, `-inf`, `nan` (any sign of
    /// NaN, which toml-test does not keep).
    static func float(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        return number.description
    }
}
