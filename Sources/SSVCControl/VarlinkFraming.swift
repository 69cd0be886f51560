/// Varlink's framing: every message, either way, ends with a NUL byte.
public enum VarlinkFraming {
    public static let terminator: UInt8 = 0
    /// The longest call the daemon reads: a longer one closes the
    /// connection rather than filling memory.
    public static let maximumLength = 64 * 1024
    /// The longest reply a client reads: `GetStatus` grows with the apps,
    /// about 400 bytes each.
    public static let maximumReplyLength = 16 << 20

    public struct TooLong: Error, CustomStringConvertible {
        public let limit: Int
        public var description: String { "a message longer than \(limit) bytes" }
    }

    /// `message` with its terminator.
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        message + [terminator]
    }

    /// Where the first complete message in `bytes` ends (the terminator's
    /// index); nil when more bytes are needed. A message longer than `limit`
    /// is an error.
    public static func end<Bytes: Collection<UInt8>>(
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
