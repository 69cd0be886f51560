@preconcurrency import Glibc

/// Unix stream sockets by path, without the `sockaddr_un` dance at every
/// caller. A path too long for `sun_path` fails with ENAMETOOLONG rather
/// than being cut short.
public enum UnixSocket {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public let code: Int32
    }

    /// A new stream socket, close-on-exec, connected to `path`.
    public static func connected(to path: String) throws(Failure) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, connect(descriptor, to: path) == 0 else {
            let code = errno
            if descriptor >= 0 { close(descriptor) }
            throw Failure(description: "cannot connect to \(path): \(String(cString: strerror(code)))", code: code)
        }
        return descriptor
    }

    /// `connect(2)`: 0, or -1 with `errno` set.
    public static func connect(_ descriptor: Int32, to path: String) -> Int32 {
        withAddress(path) { Glibc.connect(descriptor, $0, $1) }
    }

    /// `bind(2)`: 0, or -1 with `errno` set.
    public static func bind(_ descriptor: Int32, to path: String) -> Int32 {
        withAddress(path) { Glibc.bind(descriptor, $0, $1) }
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.contains(0), bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            errno = bytes.contains(0) ? EINVAL : ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
