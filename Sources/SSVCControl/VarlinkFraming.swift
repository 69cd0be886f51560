/// Varlink's framing: every message, either way, ends with a NUL byte.
public enum VarlinkFraming {
    public static let terminator: UInt8 = 0
    /// A longer message closes the connection rather than filling memory.
    public static let maximumLength = 64 * 1024

    public struct TooLong: Error, CustomStringConvertible {
        public var description: String { "a message longer than \(VarlinkFraming.maximumLength) bytes" }
    }

    /// `message` with its terminator.
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        message + [terminator]
    }

    /// Where the first complete message in `bytes` ends (the terminator's
    /// index); nil when more bytes are needed.
    public static func end<Bytes: Collection<UInt8>>(in bytes: Bytes) throws(TooLong) -> Bytes.Index? {
        guard let end = bytes.firstIndex(of: terminator) else {
            if bytes.count > maximumLength { throw TooLong() }
            return nil
        }
        if bytes.distance(from: bytes.startIndex, to: end) > maximumLength { throw TooLong() }
        return end
    }
}
