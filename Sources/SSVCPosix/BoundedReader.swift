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

    /// Reads all of `path` (`-` is standard input), refusing more than
    /// `limit` bytes. The file is opened without blocking and must be a
    /// regular file: a FIFO, a device or a directory in its place is an
    /// error naming it, never a read that waits for ever. `specialFiles`
    /// lets an operator's own tool read a pipe (`<(…)`, `/dev/stdin`).
    public static func read(path: String, limit: Int, specialFiles: Bool = false) throws(Failure) -> [UInt8] {
        if path == "-" { return try read(descriptor: STDIN_FILENO, name: "standard input", limit: limit) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == ENXIO ? "is a socket or a device without a reader" : String(cString: strerror(code))
            throw Failure(description: "cannot open \(path): \(reason)", code: code)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            throw Failure(description: "cannot read \(path): \(String(cString: strerror(code)))", code: code)
        }
        let kind = info.st_mode & S_IFMT
        if kind != S_IFREG {
            guard specialFiles, kind != S_IFDIR else {
                throw Failure(description: "\(path) is \(describe(kind)), not a regular file", code: kind == S_IFDIR ? EISDIR : EINVAL)
            }
            // A pipe the operator named: read on the descriptor already open,
            // after waiting for its writer, as they asked. Not opened again:
            // this open already let a writer that was waiting write and
            // leave, and a second open would wait for another for ever.
            return try readPipe(descriptor, name: path, limit: limit)
        } else if info.st_size > limit {
            throw Failure(description: "\(path) is larger than \(limit) bytes", code: nil)
        }
        return try read(descriptor: descriptor, name: path, limit: limit)
    }

    /// Waits until the pipe open without blocking on `descriptor` has data,
    /// or a writer that came and went (POLLHUP; none yet: no event), then
    /// reads it to its end, blocking.
    private static func readPipe(_ descriptor: Int32, name: String, limit: Int) throws(Failure) -> [UInt8] {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&waiting, 1, -1) < 0 {
            let code = errno
            guard code == EINTR else { throw Failure(description: "cannot read \(name): \(String(cString: strerror(code)))", code: code) }
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            throw Failure(description: "cannot read \(name): \(String(cString: strerror(code)))", code: code)
        }
        return try read(descriptor: descriptor, name: name, limit: limit)
    }

    /// "a FIFO", "a directory"…: what stands where a file was expected.
    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
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
