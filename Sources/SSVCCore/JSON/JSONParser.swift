/// A strict RFC 8259 JSON reader.
///
/// Foundation's `JSONDecoder` reports every syntax error as "The given data was
/// not valid JSON." and forgets key order; operators testing a response
/// document need to be told where it is broken. This reader names the line and
/// column, bounds nesting depth, and rejects duplicate keys (a document that
/// says two things about the same key decides nothing reliably).
public struct JSONParser {
    /// Nesting deeper than this is rejected, not recursed into.
    public static let maximumDepth = 128

    /// The most memory the parsed tree may take, as `treeCost` counts it:
    /// a server's text read into a tree costs several times its size
    /// (16 MiB of `[{},{},…]` took 1.3 GiB before this bound, issue 51),
    /// so a reader of untrusted documents of megabytes bounds the tree, not
    /// only the text. Nil: no bound (documents already held to a small size).
    private let memoryLimit: Int?
    private var treeCost = 0

    private let bytes: [UInt8]
    private var index = 0
    /// Where the text read ends: the whole of `bytes`, or a range's end.
    private var end: Int
    private var depth = 0

    private init(_ bytes: [UInt8], memoryLimit: Int?) {
        self.bytes = bytes
        self.memoryLimit = memoryLimit
        end = bytes.count
    }

    /// What one value takes beside its text, in bytes: its slot in its
    /// array or object, with the slack of a growing array.
    static let valueCost = 48
    /// Objects of up to this many members are counted as small: a
    /// record's have a few.
    static let smallObject = 32
    /// What a string or number's text takes: nothing up to the 15 bytes
    /// Swift keeps inline, else its heap storage (a 32-byte header, the
    /// bytes, and the allocator's rounding).
    static func textCost(_ count: Int) -> Int { count > 15 ? 48 + count : 0 }

    /// Parses one JSON document, which must be the whole input apart from
    /// surrounding white space. With `memoryLimit`, a document whose tree
    /// would take more bytes than that is refused as it is read (the error's
    /// `tooLarge` is then true).
    public static func parse(_ bytes: [UInt8], memoryLimit: Int? = nil) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes, memoryLimit: memoryLimit)
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw parser.error(bytes.isEmpty ? "the document is empty" : "the document is only white space")
        }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected \(parser.describeCurrent()) after the document")
        }
        return value
    }

    /// The members of the object that is the whole of `bytes`, each key
    /// with the place of its value's text, the values delimited but not
    /// built nor checked: a reader of a large file of many records (the
    /// state file's apps) then parses one record at a time, and damage
    /// inside one (a byte that is not UTF-8, nesting past the bound) costs
    /// that record when it is parsed, not the file (issue 52: a 64 MiB
    /// state took 11 times its size read whole). The keys are checked as
    /// `parse` checks them. Duplicate keys are all listed, in order: the
    /// caller decides.
    public static func members(of bytes: [UInt8]) throws(JSONSyntaxError) -> [(key: String, value: Range<Int>)] {
        var parser = JSONParser(bytes, memoryLimit: nil)
        parser.skipWhitespace()
        var members: [(key: String, value: Range<Int>)] = []
        try parser.members { members.append(($0, $1)) }
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected \(parser.describeCurrent()) after the document")
        }
        return members
    }

    /// Each member of the object whose text is `range` of `bytes` (a
    /// range `members(of:)` gave), as `members(of:)` reads them, given to
    /// `body` as it is reached, none kept: a million apps in a state file
    /// listed first took 32 MiB before one was read. A syntax error is
    /// thrown when reached, after the members before it were given. With
    /// `badKey`, a key whose text is no string (a byte that is not UTF-8,
    /// a bad escape) is given to it with its member passed over, not
    /// thrown: a state file's app named so costs that app alone.
    public static func forEachMember(
        of bytes: [UInt8], in range: Range<Int>, badKey: ((JSONSyntaxError) -> Void)? = nil,
        _ body: (_ key: String, _ value: Range<Int>) -> Void
    ) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes, memoryLimit: nil)
        parser.index = range.lowerBound
        parser.end = range.upperBound
        try parser.members(badKey: badKey, body)
        guard parser.index == range.upperBound else { throw parser.error("unexpected \(parser.describeCurrent()) after the object") }
    }

    /// Parses the value whose text is `range` of `bytes` (a range
    /// `members(of:)` gave), without copying it out: one record of a
    /// large file. An error's line and column are the file's.
    public static func parse(_ bytes: [UInt8], in range: Range<Int>) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes, memoryLimit: nil)
        parser.index = range.lowerBound
        parser.end = range.upperBound
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == range.upperBound else { throw parser.error("unexpected \(parser.describeCurrent()) after the value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Counts `bytes` more of the tree against the memory limit.
    private mutating func spend(_ bytes: Int) throws(JSONSyntaxError) {
        guard let memoryLimit else { return }
        treeCost += bytes
        if treeCost > memoryLimit {
            let limit = memoryLimit % (1 << 20) == 0 ? "\(memoryLimit >> 20) MiB" : "\(memoryLimit) bytes"
            var failure = error("the document would take more than \(limit) of memory once read")
            failure.tooLarge = true
            throw failure
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < end else { throw error("unexpected end of document") }
        try spend(Self.valueCost)
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let text = try parseString()
            try spend(Self.textCost(text.utf8.count))
            return .string(text)
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let text = try parseNumber()
            try spend(Self.textCost(text.utf8.count))
            return .number(text)
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var seen = Set<String>()
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else {
                throw error("unexpected \(describeCurrent()), expected a string key")
            }
            let keyStart = index
            let key = try parseString()
            // Its text, its half of the member's slot and its entry in
            // `seen`; in a large object more: the members and `seen` grow
            // by doubling, holding up to three times their size meanwhile
            // (1.2 million keys in one object took 127 MiB at 32).
            try spend(Self.textCost(key.utf8.count) + (members.count < Self.smallObject ? 32 : 96))
            guard seen.insert(key).inserted else {
                index = keyStart
                throw error("duplicate key \"\(key)\"")
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else {
                throw error("unexpected \(describeCurrent()), expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
            } else if peek(UInt8(ascii: "}")) {
                index += 1
                depth -= 1
                return .object(members)
            } else {
                throw error("unexpected \(describeCurrent()), expected ',' or '}'")
            }
        }
    }

    /// An object's members, each value skipped (delimited, not built).
    private mutating func members(badKey: ((JSONSyntaxError) -> Void)? = nil, _ body: (String, Range<Int>) -> Void) throws(JSONSyntaxError) {
        guard peek(UInt8(ascii: "{")) else { throw error("unexpected \(describeCurrent()), expected an object") }
        try enter()
        index += 1
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("unexpected \(describeCurrent()), expected a string key") }
            let keyStart = index
            var key: String?
            var keyProblem: JSONSyntaxError?
            do {
                key = try parseString()
            } catch {
                guard badKey != nil else { throw error }
                // Delimited as any string is; one that never ends still throws.
                index = keyStart
                try skipString()
                keyProblem = error
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("unexpected \(describeCurrent()), expected ':' after key \"\(key ?? "")\"") }
            index += 1
            skipWhitespace()
            let start = index
            try skipValue()
            if let key { body(key, start..<index) } else if let keyProblem { badKey?(keyProblem) }
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
            } else if peek(UInt8(ascii: "}")) {
                index += 1
                depth -= 1
                return
            } else {
                throw error("unexpected \(describeCurrent()), expected ',' or '}'")
            }
        }
    }

    /// Moves past one value: an object or array by its brackets, a string
    /// to its closing quote; a number or literal is checked, as it is no
    /// longer than it looks.
    private mutating func skipValue() throws(JSONSyntaxError) {
        guard index < end else { throw error("unexpected end of document") }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): try skipNested()
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    /// Moves past an object or array by counting brackets outside
    /// strings, without recursion and without a depth bound: what is inside
    /// (a record nested 10,000 deep) is checked by whoever parses it, and
    /// costs that value alone.
    private mutating func skipNested() throws(JSONSyntaxError) {
        var open = 0
        repeat {
            guard index < end else { throw error("unexpected end of document") }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                open -= 1
                index += 1
            case UInt8(ascii: "\""):
                try skipString()
            default:
                index += 1
            }
        } while open > 0
    }

    /// Moves past a string to its closing quote, an escaped quote
    /// included; what it holds is checked by whoever parses it.
    private mutating func skipString() throws(JSONSyntaxError) {
        index += 1  // opening quote
        while index < end {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 2
            default:
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func skipNumber() throws(JSONSyntaxError) {
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
            if index < end, isDigit(bytes[index]) { throw error("leading zero in a number") }
        } else {
            guard skipDigits() > 0 else { throw error("a number needs digits") }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard skipDigits() > 0 else { throw error("a number needs digits after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard skipDigits() > 0 else { throw error("a number needs digits in its exponent") }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
            } else if peek(UInt8(ascii: "]")) {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw error("unexpected \(describeCurrent()), expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        var unescaped: [UInt8] = []
        var escapes = false
        var runStart = index
        while index < end {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text: String?
                if escapes {
                    unescaped.append(contentsOf: bytes[runStart..<index])
                    text = String(validating: unescaped, as: UTF8.self)
                } else {
                    text = String(validating: bytes[runStart..<index], as: UTF8.self)
                }
                guard let text else { throw error("invalid UTF-8 in a string") }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                escapes = true
                unescaped.append(contentsOf: bytes[runStart..<index])
                index += 1
                UTF8.encode(try parseEscape()) { unescaped.append($0) }
                runStart = index
            case 0..<0x20:
                throw error("control character 0x\(String(byte, radix: 16)) in a string (escape it)")
            default:
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard index < end else { throw error("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800..<0xDC00).contains(first) {
                guard end - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate \\u\(String(first, radix: 16))")
                }
                index += 2
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else {
                    throw error("unpaired surrogate \\u\(String(first, radix: 16))")
                }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value)!
            }
            guard let scalar = Unicode.Scalar(first) else {
                throw error("unpaired surrogate \\u\(String(first, radix: 16))")
            }
            return scalar
        default:
            index -= 1
            throw error("invalid escape \\\(describeCurrent())")
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard end - index >= 4 else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        try skipNumber()
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while index < end, isDigit(bytes[index]) { index += 1 }
        return index - start
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        let count = literal.utf8.count
        let matches = end - index >= count && literal.utf8.elementsEqual(bytes[index..<index + count])
        guard matches else { throw error("unexpected \(describeCurrent()), expected a value") }
        index += count
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < end && bytes[index] == byte
    }

    private mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < end else { return "end of document" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ message: String) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(index, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(message: message, line: line, column: index - lineStart + 1)
    }
}

/// Why a document is not JSON, or is refused as too large to read, and where.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int
    /// Valid so far, but past the reader's memory limit.
    public internal(set) var tooLarge = false

    public var description: String { "\(tooLarge ? "refused" : "not valid JSON"): \(message) at line \(line), column \(column)" }
}
