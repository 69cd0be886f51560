import Foundation

/// `bind` or `connect` a socket to a Unix path, without repeating the
/// `sockaddr_un` dance in every helper.
enum UnixAddress {
    static func bind(_ descriptor: Int32, to path: String) -> Int32 {
        with(path) { Foundation.bind(descriptor, $0, $1) }
    }

    static func connect(_ descriptor: Int32, to path: String) -> Int32 {
        with(path) { Foundation.connect(descriptor, $0, $1) }
    }

    private static func with(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8).prefix($0.count - 1)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
