/// Text from outside (a version server, a file) made safe to show a
/// person on a terminal, and version strings held to a shape a terminal,
/// a journal field and a Prometheus label can all carry.
///
/// A server's text could otherwise clear the screen (`ESC [2J`), retitle the
/// window or write the clipboard (OSC), plant links, reorder what follows
/// (U+202E) or forge whole lines. `escaped` shows each such character as
/// text, as systemd's `cescape` does, so nothing reaches the terminal that
/// the program printing it did not put there.
public enum DisplayText {
    /// The most characters of one outside text shown to a person.
    public static let maximumShownCharacters = 512
    /// The most bytes a version string may have, from any source.
    public static let maximumVersionBytes = 256

    /// Whether `scalar` must not reach a terminal as it is: C0 controls
    /// (line breaks included), DEL, C1 controls, and the bidirectional
    /// formatting characters that reorder what follows them.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }

    /// Whether `scalar` is a format character (Unicode category Cf: U+200B
    /// zero width space, U+00AD soft hyphen, U+2060, U+FEFF, tag
    /// characters): invisible, so `1.0\u{200B}` would read as `1.0`.
    /// Escaped when shown, as controls are (issue 52).
    public static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format
    }

    /// `text` with every control and format character and backslash
    /// written as an escape (`\x1b`, `\n`, `\u{202E}`, `\\`), and, past `limit`
    /// characters, cut with "..." (ASCII, for any terminal). Text without
    /// them comes back as it is.
    public static func escaped(_ text: String, limit: Int = maximumShownCharacters) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else {
                result += "..."
                break
            }
            count += 1
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x100, isControl(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\x" + (hex.count == 1 ? "0" + hex : hex)
                } else if isControl(scalar) || isFormat(scalar) {
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// The most bytes of one stored server text (a description, an error
    /// that quotes the server); longer ones are cut.
    public static let maximumStoredBytes = 4096

    /// `text` cut to at most `bytes` UTF-8 bytes on a character boundary,
    /// with "…" when anything was cut.
    public static func cut(_ text: String, bytes: Int = maximumStoredBytes) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= bytes - 3 else { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// Why `version` cannot be a version string: too long, or holding
    /// anything but printable ASCII without blanks (every scheme's
    /// versions are; an invisible U+200B or a trailing blank would show
    /// `1.0 -> 1.0`, issue 52); nil when it can.
    public static func versionProblem(_ version: String) -> String? {
        if version.utf8.count > maximumVersionBytes {
            return "longer than \(maximumVersionBytes) bytes (\(version.utf8.count))"
        }
        guard let bad = version.unicodeScalars.first(where: { !(0x21...0x7E).contains($0.value) }) else { return nil }
        let hex = String(bad.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        if isControl(bad) { return "holds the control character \(code)" }
        if bad == " " { return "holds a blank (U+0020): a version is printable ASCII without blanks" }
        return "holds \(code), not printable ASCII: a version is printable ASCII without blanks"
    }
}
