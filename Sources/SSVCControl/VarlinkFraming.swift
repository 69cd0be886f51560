/// Varlink's framing: every message, either way, ends with a NUL byte.
package enum VarlinkFraming {
    package static let terminator: UInt8 = 0
    /// The longest call the daemon reads: a longer one closes the
    /// connection rather than filling memory.
    package static let maximumLength = 64 * 1024
    /// The longest reply a client reads: `GetStatus` grows with the apps,
    /// about 400 bytes each.
    package static let maximumReplyLength = 16 << 20

    package struct TooLong: Error, CustomStringConvertible {
        package let limit: Int
        package var description: String { "a message longer than \(limit) bytes" }
    }

    /// `message` with its terminator.
    package static func frame(_ message: [UInt8]) -> [UInt8] {
        message + [terminator]
    }

    /// Where the first complete message in `bytes` ends (the terminator's
    /// index); nil when more bytes are needed. A message longer than `limit`
    /// is an error.
    package static func end<Bytes: Collection<UInt8>>(
        in bytes: Bytes, limit: Int = maximumLength
    ) throws(TooLong) -> Bytes.Index? {
        guard let end = bytes.firstIndex(of: terminator) else {
            if bytes.count > limit { throw TooLong(limit: limit) }
            return nil
        }
        if bytes.distance(from: bytes.startIndex, to: end) > limit { throw TooLong(limit: limit) }
        return end
    }
}
