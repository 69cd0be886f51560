/// A Debian package version, ordered as dpkg orders it (deb-version(7)).
///
/// Parsing follows dpkg's: errors where dpkg errors (embedded space, bad or
/// empty epoch, nothing after the colon, empty revision, empty upstream
/// version); what dpkg only warns about (a first character that is not a
/// digit, unusual characters) is accepted and compared as dpkg compares it.
/// The empty string (and `<unknown>`) is dpkg's "no version": it orders
/// before every version, `~` included.
struct DebianVersion {
    /// False for "no version".
    let isInformative: Bool
    let epoch: Int
    let upstream: ArraySlice<UInt8>
    let revision: ArraySlice<UInt8>

    init(parsing text: String) throws(VersionError) {
        func fail(_ reason: String) -> VersionError {
            VersionError(version: text, scheme: .debian, reason: reason)
        }
        let bytes = Array(text.utf8).trimmingASCIIWhitespace()
        guard !bytes.isEmpty, !bytes.elementsEqual("<unknown>".utf8) else {
            isInformative = false
            epoch = 0
            upstream = []
            revision = []
            return
        }
        isInformative = true
        guard !bytes.contains(where: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }) else {
            throw fail("version string has embedded spaces")
        }
        var rest = bytes
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            let digits = bytes[..<colon]
            guard !digits.isEmpty else { throw fail("epoch in version is empty") }
            guard digits.allSatisfy(DigitRun.isDigit) else { throw fail("epoch in version is not number") }
            guard let epoch = Int32(String(decoding: digits, as: UTF8.self)) else {
                throw fail("epoch in version is too big")
            }
            self.epoch = Int(epoch)
            rest = bytes[(colon + 1)...]
            guard !rest.isEmpty else { throw fail("nothing after colon in version number") }
        } else {
            epoch = 0
        }
        if let hyphen = rest.lastIndex(of: UInt8(ascii: "-")) {
            revision = rest[(hyphen + 1)...]
            guard !revision.isEmpty else { throw fail("revision number is empty") }
            rest = rest[..<hyphen]
        } else {
            revision = []
        }
        guard !rest.isEmpty else { throw fail("version number is empty") }
        upstream = rest
    }

    func compare(to other: DebianVersion) -> VersionComparison {
        guard isInformative, other.isInformative else {
            return isInformative ? .newer : (other.isInformative ? .older : .same)
        }
        if epoch != other.epoch { return VersionComparison(epoch, other.epoch) }
        let order = Self.compareParts(upstream, other.upstream)
        return order != .same ? order : Self.compareParts(revision, other.revision)
    }

    /// dpkg's `order()`: `~` before the end of a part, the end before letters,
    /// letters before everything else.
    private static func weight(_ byte: UInt8?) -> Int {
        guard let byte else { return 0 }
        if DigitRun.isDigit(byte) { return 0 }
        if byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z") { return Int(byte) }
        if byte == UInt8(ascii: "~") { return -1 }
        return Int(byte) + 256
    }

    private static func startsWithNonDigit(_ part: ArraySlice<UInt8>) -> Bool {
        part.first.map { !DigitRun.isDigit($0) } ?? false
    }

    /// dpkg's `verrevcmp()`: alternate non-digit runs (by weight) and digit
    /// runs (by value).
    private static func compareParts(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> VersionComparison {
        var a = lhs[...]
        var b = rhs[...]
        while !a.isEmpty || !b.isEmpty {
            while startsWithNonDigit(a) || startsWithNonDigit(b) {
                let wa = weight(a.first), wb = weight(b.first)
                if wa != wb { return VersionComparison(wa, wb) }
                a = a.dropFirst()
                b = b.dropFirst()
            }
            let digitsA = a.prefix(while: DigitRun.isDigit)
            let digitsB = b.prefix(while: DigitRun.isDigit)
            let order = DigitRun.compare(digitsA, digitsB)
            if order != .same { return order }
            a = a.dropFirst(digitsA.count)
            b = b.dropFirst(digitsB.count)
        }
        return .same
    }
}
