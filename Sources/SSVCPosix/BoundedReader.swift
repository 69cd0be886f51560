@preconcurrency import Glibc

/// Reads whole inputs that come from outside (response documents, version
/// files) with a size cap, so a huge input is an error, not a memory spike.
public enum BoundedReader {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
        /// The system's error number, taken when the call failed; nil when
        /// the input was merely too large.
        public let code: Int32?
    }

    /// Reads all of `path` (`-` is standard input), refusing more than `limit` bytes.
    public static func read(path: String, limit: Int) throws(Failure) -> [UInt8] {
        if path == "-" { return try read(descriptor: STDIN_FILENO, name: "standard input", limit: limit) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw Failure(description: "cannot open \(path): \(String(cString: strerror(code)))", code: code)
        }
        defer { close(descriptor) }
        return try read(descriptor: descriptor, name: path, limit: limit)
    }

    /// Reads `descriptor` to its end, refusing more than `limit` bytes.
    public static func read(descriptor: Int32, name: String, limit: Int) throws(Failure) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return result }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                let reason = code == EISDIR ? "is a directory" : String(cString: strerror(code))
                throw Failure(description: "cannot read \(name): \(reason)", code: code)
            }
            guard result.count + count <= limit else {
                throw Failure(description: "\(name) is larger than \(limit) bytes", code: nil)
            }
            result.append(contentsOf: chunk[0..<count])
        }
    }
}
