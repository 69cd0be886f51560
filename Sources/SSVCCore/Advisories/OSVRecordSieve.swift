#if canImport(Glibc)
@preconcurrency import Glibc
#else
import Darwin
#endif

/// Whether a record's text could name a package, asked of its bytes before
/// any JSON is parsed: an export holds some 18,000 records and one package
/// is named in a few of them (issue 55). The answer errs one way only: a
/// record it passes over cannot name the package, however its name is
/// written, so the findings are those of parsing every record.
///
/// A record names the package when one of its `affected[].package.name`
/// strings, read as JSON and compared as the ecosystem compares names
/// (PyPI: lower case, runs of `-`, `_` and `.` alike), is the package's
/// name. Any such string then holds each of the name's runs of ASCII
/// letters and digits (`github`, `gin-gonic`'s `gonic`…), in some case,
/// each letter written as itself, as its other case, as a `\u` escape, or
/// (for `k`) as the Kelvin sign U+212A, whose lower case is `k`. The sieve
/// looks for every run of three or more in either case; a Kelvin sign
/// (when a run holds `k`) or any `\u` escape of a letter or digit (or of
/// U+212A) sends the record to the parser.
public struct OSVRecordSieve: Sendable {
    /// The runs, lowercased, each with the index of its byte the search is
    /// anchored on (its rarest in English text). Empty when the name has
    /// no run of `shortestRun` (`a-b`): every record is then parsed.
    let runs: [(bytes: [UInt8], anchor: Int)]
    let hasK: Bool

    static let shortestRun = 3

    public init(package: String) {
        var found: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in package.utf8 + [0] {
            if Self.isLetterOrDigit(byte) {
                current.append(byte | (Self.isLetter(byte) ? 0x20 : 0))
            } else {
                if current.count >= Self.shortestRun, !found.contains(current) { found.append(current) }
                current = []
            }
        }
        // Letters from rarest to commonest in English; digits are rarer still.
        let rarity = Array("0123456789qjzxkvbpygfwmucldrhsnioate".utf8)
        let rank = { (byte: UInt8) in rarity.firstIndex(of: byte) ?? 0 }
        runs = found.sorted { $0.count > $1.count }.map { run in (run, run.indices.min { rank(run[$0]) < rank(run[$1]) } ?? 0) }
        hasK = found.contains { $0.contains(UInt8(ascii: "k")) }
    }

    /// Whether `bytes` could name the package (false only when they cannot).
    public func mayName(_ bytes: [UInt8]) -> Bool {
        guard !runs.isEmpty else { return true }
        return bytes.withUnsafeBytes { text in
            guard let base = text.baseAddress, !text.isEmpty else { return false }
            if Self.hasNameEscape(base, count: text.count) { return true }
            if hasK, Self.hasKelvinSign(base, count: text.count) { return true }
            return runs.allSatisfy { Self.containsIgnoringCase($0.bytes, anchor: $0.anchor, in: base, count: text.count) }
        }
    }

    /// Whether a `\u` escape of an ASCII letter or digit, or of U+212A, is in the text.
    static func hasNameEscape(_ base: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset < count, let found = memchr(base + offset, Int32(UInt8(ascii: "\\")), count - offset) {
            let at = UnsafeRawPointer(found) - base
            offset = at + 1
            guard at + 5 < count, base.load(fromByteOffset: at + 1, as: UInt8.self) == UInt8(ascii: "u") else { continue }
            var code: UInt32 = 0
            var valid = true
            for index in 2...5 {
                guard let digit = hexValue(base.load(fromByteOffset: at + index, as: UInt8.self)) else {
                    valid = false
                    break
                }
                code = code << 4 | UInt32(digit)
            }
            if valid, code == 0x212A || (code < 0x80 && isLetterOrDigit(UInt8(code))) { return true }
        }
        return false
    }

    /// Whether U+212A (E2 84 AA in UTF-8) is in the text.
    static func hasKelvinSign(_ base: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset < count, let found = memchr(base + offset, 0xE2, count - offset) {
            let at = UnsafeRawPointer(found) - base
            offset = at + 1
            if at + 2 < count, base.load(fromByteOffset: at + 1, as: UInt8.self) == 0x84, base.load(fromByteOffset: at + 2, as: UInt8.self) == 0xAA {
                return true
            }
        }
        return false
    }

    /// Whether the run, lower case, is in the text in any case: each place
    /// its anchor byte is (in either case) is compared whole.
    static func containsIgnoringCase(_ run: [UInt8], anchor: Int, in base: UnsafeRawPointer, count: Int) -> Bool {
        let target = run[anchor]
        let variants: [UInt8] = isLetter(target) ? [target, target & ~0x20] : [target]
        for variant in variants {
            var offset = anchor
            while offset < count, let found = memchr(base + offset, Int32(variant), count - offset) {
                let at = UnsafeRawPointer(found) - base
                offset = at + 1
                let start = at - anchor
                guard start + run.count <= count else { break }
                var matches = true
                for (index, expected) in run.enumerated() {
                    let byte = base.load(fromByteOffset: start + index, as: UInt8.self)
                    if (isLetter(byte) ? byte | 0x20 : byte) != expected {
                        matches = false
                        break
                    }
                }
                if matches { return true }
            }
        }
        return false
    }

    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    static func isLetterOrDigit(_ byte: UInt8) -> Bool { isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
