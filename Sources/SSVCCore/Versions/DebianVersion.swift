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
        // dpkg trims and refuses blanks (space, tab) only; a line feed or a
        // carriage return is one more character it compares (found by make fuzz).
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let all = Array(text.utf8)
        // dpkg's "no version": exactly the empty string or `<unknown>`;
        // blanks alone are an empty version, which it refuses.
        guard !all.isEmpty, !all.elementsEqual("<unknown>".utf8) else {
            isInformative = false
            epoch = 0
            upstream = []
            revision = []
            return
        }
        isInformative = true
        let bytes = all.firstIndex { !isBlank($0) }.map { first in all[first...all.lastIndex { !isBlank($0) }!] } ?? []
        guard !bytes.isEmpty else { throw fail("version string is empty") }
        guard !bytes.contains(where: isBlank) else {
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
    /// letters before everything else. dpkg reads the byte as a C `char`,
    /// signed on amd64 (unsigned on arm64): a byte past ASCII weighs its
    /// value as that `char` plus 256, as `CChar` is here.
    private static func weight(_ byte: UInt8?) -> Int {
        guard let byte else { return 0 }
        if DigitRun.isDigit(byte) { return 0 }
        if byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z") { return Int(byte) }
        if byte == UInt8(ascii: "~") { return -1 }
        return Int(CChar(bitPattern: byte)) + 256
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
