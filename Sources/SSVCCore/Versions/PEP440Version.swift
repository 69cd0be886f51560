/// A Python package version as PEP 440 defines it, read, ordered and printed
/// as Python's `packaging.version.Version` (26.x) does, which is what pip and
/// PyPI use.
///
/// Reading follows packaging's pattern, which is looser than PEP 440's
/// canonical form: any case, white space around (Python's `\s`, Unicode
/// spaces included), a leading `v`, `alpha`/`beta`/`c`/`pre`/`preview` for
/// `a`/`b`/`rc`, `rev`/`r` for `post`, `1.0-1` for `1.0.post1`, `.`, `-`
/// or `_` (or nothing) before and after each pre-, post- and dev-release
/// word, an implicit `0` after a word without a number, and `-`/`_` between
/// local segments. Numbers are digit strings compared by value at any
/// length, up to Python's 4300 digits (`int()` refuses more, and so
/// `Version` does).
struct PEP440Version {
    enum PreRelease: Int {
        case alpha, beta, candidate

        var spelling: String {
            switch self {
            case .alpha: "a"
            case .beta: "b"
            case .candidate: "rc"
            }
        }
    }

    /// A part of the local version (after `+`): all digits, or letters and
    /// digits (lower case).
    enum LocalSegment {
        case number([UInt8])
        case text([UInt8])
    }

    /// Every number without leading zeros (`0` stays `0`).
    let epoch: [UInt8]
    let release: [[UInt8]]
    let pre: (kind: PreRelease, number: [UInt8])?
    let post: [UInt8]?
    let dev: [UInt8]?
    let local: [LocalSegment]?

    /// The longest digit run Python's `int()` reads from text by default
    /// (`sys.get_int_max_str_digits()`); packaging fails on a longer one.
    static let maximumDigits = 4300

    private static let zero: [UInt8] = [UInt8(ascii: "0")]

    /// The pre-release words in the order packaging's pattern tries them
    /// (`alpha` before `a`, `preview` before `pre`).
    private static let preReleaseWords: [(String, PreRelease)] = [
        ("alpha", .alpha), ("a", .alpha), ("beta", .beta), ("b", .beta),
        ("preview", .candidate), ("pre", .candidate), ("c", .candidate), ("rc", .candidate),
    ]

    init(parsing text: String) throws(VersionError) {
        func fail(_ reason: String) -> VersionError {
            VersionError(version: text, scheme: .pep440, reason: reason)
        }
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !Self.isSpace($0) }),
              let last = scalars.lastIndex(where: { !Self.isSpace($0) })
        else { throw fail(text.isEmpty ? "empty" : "nothing but white space") }
        var shown: [UInt8] = []
        shown.reserveCapacity(last - first + 1)
        for scalar in scalars[first...last] {
            guard scalar.isASCII else { throw fail("holds \(Self.codePoint(scalar)), which is not ASCII") }
            shown.append(UInt8(scalar.value))
        }
        var reader = Reader(shown)

        func number(_ digits: ArraySlice<UInt8>) throws(VersionError) -> [UInt8] {
            guard digits.count <= Self.maximumDigits else {
                throw fail("a number of \(digits.count) digits, more than Python reads (\(Self.maximumDigits))")
            }
            let significant = digits.drop { $0 == UInt8(ascii: "0") }
            return significant.isEmpty ? Self.zero : Array(significant)
        }

        _ = reader.take("v")
        // Epoch: digits and `!`, or nothing (the digits are then the release).
        let start = reader.position
        let epochDigits = reader.digits()
        if !epochDigits.isEmpty, reader.take("!") {
            epoch = try number(epochDigits)
        } else {
            reader.position = start
            epoch = Self.zero
        }
        // Release: N(.N)*; a `.` not followed by a digit is left for what follows.
        let firstPart = reader.digits()
        guard !firstPart.isEmpty else {
            throw fail(reader.position == 0 ? "does not begin with a release number" : "no release number after '\(reader.consumed)'")
        }
        var release = [try number(firstPart)]
        while reader.peek() == UInt8(ascii: "."), reader.peek(1).map(DigitRun.isDigit) == true {
            reader.position += 1
            release.append(try number(reader.digits()))
        }
        self.release = release
        // Pre-release: [sep] word [sep] [N].
        let beforePre = reader.position
        _ = reader.takeSeparator()
        if let kind = Self.preReleaseWords.first(where: { reader.take($0.0) })?.1 {
            _ = reader.takeSeparator()
            pre = (kind, try number(reader.digits()))
        } else {
            reader.position = beforePre
            pre = nil
        }
        // Post-release: -N, or [sep] post|rev|r [sep] [N].
        let beforePost = reader.position
        if reader.take("-"), case let digits = reader.digits(), !digits.isEmpty {
            post = try number(digits)
        } else {
            reader.position = beforePost
            _ = reader.takeSeparator()
            if ["post", "rev", "r"].contains(where: { reader.take($0) }) {
                _ = reader.takeSeparator()
                post = try number(reader.digits())
            } else {
                reader.position = beforePost
                post = nil
            }
        }
        // Development release: [sep] dev [sep] [N].
        let beforeDev = reader.position
        _ = reader.takeSeparator()
        if reader.take("dev") {
            _ = reader.takeSeparator()
            dev = try number(reader.digits())
        } else {
            reader.position = beforeDev
            dev = nil
        }
        // Local version: + segment ([sep] segment)*, to the end.
        if reader.take("+") {
            let localStart = reader.position
            var segments: [LocalSegment] = []
            repeat {
                let segment = reader.alphanumerics()
                guard !segment.isEmpty else {
                    throw fail(reader.atEnd && segments.isEmpty ? "nothing after '+' (the local version)"
                        : "an empty segment in the local version '\(reader.text(from: localStart))'")
                }
                if segment.allSatisfy(DigitRun.isDigit) {
                    segments.append(.number(try number(segment)))
                } else {
                    segments.append(.text(segment.map(Reader.lowercased)))
                }
            } while reader.takeSeparator()
            guard reader.atEnd else {
                throw fail("the local version '\(reader.text(from: localStart))' may hold only letters and digits, parted by '.', '-' or '_'")
            }
            local = segments
        } else {
            local = nil
        }
        guard reader.atEnd else {
            throw fail(
                "unexpected '\(reader.rest)' after '\(reader.consumed)': a release may be followed only by a pre-, post- and dev-release and a +local version, in that order"
            )
        }
    }

    /// Python's `\s` in a `str` pattern: what packaging trims from both ends.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The canonical text, as `str(Version(text))` prints it: `1!2.0rc1.post3.dev4+ubuntu.1`.
    var normalized: String {
        var bytes: [UInt8] = []
        if epoch != Self.zero { bytes += epoch + [UInt8(ascii: "!")] }
        for (index, part) in release.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ".")) }
            bytes += part
        }
        if let pre { bytes += Array(pre.kind.spelling.utf8) + pre.number }
        if let post { bytes += Array(".post".utf8) + post }
        if let dev { bytes += Array(".dev".utf8) + dev }
        if let local {
            for (index, segment) in local.enumerated() {
                bytes.append(UInt8(ascii: index == 0 ? "+" : "."))
                switch segment {
                case let .number(digits), let .text(digits): bytes += digits
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// packaging's `_cmpkey`: epoch; release without trailing zeros;
    /// pre-release (a dev release of the release itself, `1.0.dev1`, before
    /// any `a`, `b`, `rc`; no pre-release after them); post-release (none
    /// first); dev release (none last); local version (none first; segment
    /// by segment, text before numbers, a shorter one first).
    func compare(to other: PEP440Version) -> VersionComparison {
        var order = DigitRun.compare(epoch, other.epoch)
        if order != .same { return order }
        order = Self.compare(release.prefix(significantParts), other.release.prefix(other.significantParts))
        if order != .same { return order }
        if preRank != other.preRank { return VersionComparison(preRank, other.preRank) }
        order = DigitRun.compare(pre?.number ?? Self.zero, other.pre?.number ?? Self.zero)
        if order != .same { return order }
        if (post == nil) != (other.post == nil) { return post == nil ? .older : .newer }
        order = DigitRun.compare(post ?? Self.zero, other.post ?? Self.zero)
        if order != .same { return order }
        if (dev == nil) != (other.dev == nil) { return dev == nil ? .newer : .older }
        order = DigitRun.compare(dev ?? Self.zero, other.dev ?? Self.zero)
        if order != .same { return order }
        switch (local, other.local) {
        case (nil, nil): return .same
        case (nil, _): return .older
        case (_, nil): return .newer
        case let (mine?, theirs?): return Self.compare(local: mine, theirs)
        }
    }

    /// The release's parts up to its last that is not zero (`1.0.0` is `1`).
    private var significantParts: Int {
        (release.lastIndex { $0 != Self.zero } ?? -1) + 1
    }

    /// -1 for a dev release alone (`1.0.dev1`), 0, 1, 2 for a, b, rc; 3 for none.
    private var preRank: Int {
        if let pre { return pre.kind.rawValue }
        return post == nil && dev != nil ? -1 : 3
    }

    private static func compare(_ lhs: ArraySlice<[UInt8]>, _ rhs: ArraySlice<[UInt8]>) -> VersionComparison {
        for (a, b) in zip(lhs, rhs) {
            let order = DigitRun.compare(a, b)
            if order != .same { return order }
        }
        return VersionComparison(lhs.count, rhs.count)
    }

    private static func compare(local lhs: [LocalSegment], _ rhs: [LocalSegment]) -> VersionComparison {
        for (a, b) in zip(lhs, rhs) {
            let order: VersionComparison
            switch (a, b) {
            case let (.number(x), .number(y)): order = DigitRun.compare(x, y)
            case (.number, .text): order = .newer
            case (.text, .number): order = .older
            case let (.text(x), .text(y)): order = x.lexicographicallyPrecedes(y) ? .older : (x == y ? .same : .newer)
            }
            if order != .same { return order }
        }
        return VersionComparison(lhs.count, rhs.count)
    }
}

/// A cursor over a version's ASCII bytes; words match in any case.
private struct Reader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }
    var consumed: String { String(decoding: bytes[..<position], as: UTF8.self) }
    var rest: String { text(from: position) }

    func text(from start: Int) -> String { String(decoding: bytes[start...], as: UTF8.self) }

    func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// Takes `word` (lower case) if the text goes on with it in any case.
    mutating func take(_ word: String) -> Bool {
        var index = position
        for expected in word.utf8 {
            guard index < bytes.count, Self.lowercased(bytes[index]) == expected else { return false }
            index += 1
        }
        position = index
        return true
    }

    /// Takes one `.`, `-` or `_`.
    mutating func takeSeparator() -> Bool {
        guard let byte = peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") else { return false }
        position += 1
        return true
    }

    mutating func digits() -> ArraySlice<UInt8> {
        let start = position
        while let byte = peek(), DigitRun.isDigit(byte) { position += 1 }
        return bytes[start..<position]
    }

    mutating func alphanumerics() -> ArraySlice<UInt8> {
        let start = position
        while let byte = peek(), DigitRun.isDigit(byte) || (Self.lowercased(byte) >= UInt8(ascii: "a") && Self.lowercased(byte) <= UInt8(ascii: "z")) {
            position += 1
        }
        return bytes[start..<position]
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
