/// A time zone's offsets from UTC over time, read from a TZif file (RFC
/// 8536) as the system's tzdata ships them in /usr/share/zoneinfo: the
/// transitions it lists, then its footer's POSIX TZ rule for every later
/// year (SPEC §16). Foundation's `TimeZone` needs ICU's data and gives no
/// transitions past the file's; this reads the file itself, and Python's
/// `zoneinfo` is the oracle in the tests.
package struct ZoneRules: Sendable, Equatable {
    /// The zone's name as configured: an IANA name, "UTC" or "localtime".
    package var name: String
    /// Transition instants (seconds since 1970, ascending) and the offset
    /// east of UTC, in seconds, from each one on.
    private var transitions: [Int64]
    private var offsets: [Int32]
    /// The offset before the first transition (RFC 8536: time type 0).
    private var initial: Int32
    /// The rule after the last transition; nil: the last offset stays.
    private var footer: PosixZoneRule?

    /// UTC: no file needed.
    package static let utc = ZoneRules(name: "UTC", transitions: [], offsets: [], initial: 0, footer: nil)

    /// UTC under another name (`localtime` without /etc/localtime).
    package init(utcNamed name: String) {
        self = .utc
        self.name = name
    }

    /// The most bytes a TZif file may have: the largest in tzdata is under 4 KiB.
    package static let maximumBytes = 256 * 1024

    private init(name: String, transitions: [Int64], offsets: [Int32], initial: Int32, footer: PosixZoneRule?) {
        self.name = name
        self.transitions = transitions
        self.offsets = offsets
        self.initial = initial
        self.footer = footer
    }

    /// What an IANA zone name must look like to be looked up under a
    /// zoneinfo folder: relative, components of letters, digits and
    /// `._+-`, none `.` or `..`; nil when it does.
    package static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty else { return "empty" }
        guard name.utf8.count <= 255 else { return "longer than 255 bytes" }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else {
                return "not a zone name: each part between slashes must be a name"
            }
            let allowed = component.utf8.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2B || byte == 0x2D
            }
            guard allowed else { return "not a zone name: only letters, digits and . _ + - between slashes" }
        }
        return nil
    }

    /// Reads a TZif file of any version (the 64-bit data of version 2 and
    /// later when present). Throws, naming the fault, for anything else,
    /// and for a zone with leap seconds (`right/…`), whose clock is not
    /// the system's.
    package init(name: String, tzif bytes: [UInt8]) throws(ZoneRulesError) {
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        var header = first
        var wide = false
        if first.version >= 2 {
            try reader.skip(first.dataLength(wide: false))
            header = try reader.header()
            wide = true
        }
        guard header.leapCount == 0 else { throw ZoneRulesError("it counts leap seconds (a right/ zone); use the zone without them") }
        guard header.typeCount > 0 else { throw ZoneRulesError("it has no time types") }
        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let time = wide ? try reader.int64() : Int64(try reader.int32())
            if let last = times.last, time <= last { throw ZoneRulesError("its transitions are not in ascending order") }
            times.append(time)
        }
        var indices: [Int] = []
        indices.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let index = Int(try reader.byte())
            guard index < header.typeCount else { throw ZoneRulesError("a transition names time type \(index) of \(header.typeCount)") }
            indices.append(index)
        }
        var typeOffsets: [Int32] = []
        for _ in 0..<header.typeCount {
            let offset = try reader.int32()
            // RFC 8536 §3.2: within -25 hours and +26 hours.
            guard offset >= -89_999, offset <= 93_599 else { throw ZoneRulesError("a time type's offset \(offset) s is out of range") }
            _ = try reader.byte()  // isdst
            _ = try reader.byte()  // designation index
            typeOffsets.append(offset)
        }
        try reader.skip(header.characterCount + header.standardCount + header.utcCount)
        var footer: PosixZoneRule?
        if wide {
            guard try reader.byte() == 0x0A else { throw ZoneRulesError("its footer does not start with a newline") }
            let text = try reader.line()
            if !text.isEmpty {
                do {
                    footer = try PosixZoneRule(parsing: text)
                } catch {
                    // A file's text, escaped: an error line may reach a terminal.
                    throw ZoneRulesError("its rule '\(DisplayText.escaped(DisplayText.cut(text, bytes: 64)))': \(error.reason)")
                }
            }
        }
        self.init(
            name: name, transitions: times, offsets: indices.map { typeOffsets[$0] }, initial: typeOffsets[0], footer: footer
        )
    }

    /// Seconds east of UTC at `instant` (seconds since 1970).
    package func offset(at instant: Int64) -> Int32 {
        // After the last transition, or with none, the footer rules (RFC 8536 §3.2).
        if let footer, transitions.last.map({ instant >= $0 }) ?? true { return footer.offset(at: instant) }
        let passed = transitionsPassed(by: instant)
        return passed == 0 ? initial : offsets[passed - 1]
    }

    /// How many transitions are at or before `instant` (a binary search).
    private func transitionsPassed(by instant: Int64) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first instant after `instant` at which the offset may change;
    /// nil when it never does again.
    package func nextChange(after instant: Int64) -> Int64? {
        if let last = transitions.last, instant < last { return transitions[transitionsPassed(by: instant)] }
        return footer?.nextChange(after: instant)
    }
}

/// Why a zone could not be read.
package struct ZoneRulesError: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}

/// RFC 8536's header and the reading of its big-endian fields.
private struct TZifReader {
    struct Header {
        var version: Int
        var utcCount: Int
        var standardCount: Int
        var leapCount: Int
        var timeCount: Int
        var typeCount: Int
        var characterCount: Int

        func dataLength(wide: Bool) -> Int {
            let time = wide ? 8 : 4
            return timeCount * (time + 1) + typeCount * 6 + characterCount + leapCount * (time + 4) + standardCount + utcCount
        }
    }

    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func header() throws(ZoneRulesError) -> Header {
        guard bytes.count - position >= 44, Array(bytes[position..<position + 4]) == Array("TZif".utf8) else {
            throw ZoneRulesError("not a TZif file")
        }
        let versionByte = bytes[position + 4]
        let version: Int
        switch versionByte {
        case 0: version = 1
        case 0x32...0x39: version = Int(versionByte - 0x30)
        default: throw ZoneRulesError("not a TZif version this reads")
        }
        position += 20
        var counts: [Int] = []
        for _ in 0..<6 {
            let count = try uint32()
            // Far more than any zone has; keeps the arithmetic in bounds.
            guard count <= 1 << 20 else { throw ZoneRulesError("a count of \(count) is past what a zone holds") }
            counts.append(Int(count))
        }
        return Header(
            version: version, utcCount: counts[0], standardCount: counts[1], leapCount: counts[2], timeCount: counts[3],
            typeCount: counts[4], characterCount: counts[5]
        )
    }

    mutating func skip(_ count: Int) throws(ZoneRulesError) {
        guard bytes.count - position >= count else { throw ZoneRulesError("it ends early") }
        position += count
    }

    mutating func byte() throws(ZoneRulesError) -> UInt8 {
        guard position < bytes.count else { throw ZoneRulesError("it ends early") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32() throws(ZoneRulesError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(try byte()) }
        return value
    }

    mutating func int32() throws(ZoneRulesError) -> Int32 { Int32(bitPattern: try uint32()) }

    mutating func int64() throws(ZoneRulesError) -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(try byte()) }
        return Int64(bitPattern: value)
    }

    /// The footer's text up to its closing newline.
    mutating func line() throws(ZoneRulesError) -> String {
        guard let end = bytes[position...].firstIndex(of: 0x0A) else { throw ZoneRulesError("its footer has no closing newline") }
        guard end - position <= 255 else { throw ZoneRulesError("its footer is longer than 255 bytes") }
        defer { position = end + 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }
}
