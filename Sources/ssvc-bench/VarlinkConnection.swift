@preconcurrency import Glibc
import SSVCCore

/// A blocking Varlink connection that sends ready-made messages: the load
/// generator spends its time in the round trip, not in encoding.
final class VarlinkConnection {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private var buffered = 0

    init(path: String) throws(BenchError) {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, UnixSocket.connect(descriptor, to: path) == 0 else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw BenchError("cannot connect to \(path): \(reason)")
        }
    }

    deinit { close(descriptor) }

    /// `{"method": …, "parameters": …}` and its NUL terminator.
    static func message(_ method: String, parameters: String = "{}") -> [UInt8] {
        Array("{\"method\":\"io.ssvc.Daemon.\(method)\",\"parameters\":\(parameters)}".utf8) + [0]
    }

    /// Sends `message` and returns the reply without its NUL.
    func call(_ message: [UInt8]) throws(BenchError) -> ArraySlice<UInt8> {
        var sent = 0
        while sent < message.count {
            let count = message.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("the daemon closed the connection") }
            sent += count
        }
        buffered = 0
        while true {
            if let end = buffer[0..<buffered].firstIndex(of: 0) { return buffer[0..<end] }
            guard buffered < buffer.count else { throw BenchError("reply over \(buffer.count) bytes") }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + buffered, $0.count - buffered, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("the daemon closed the connection") }
            buffered += count
        }
    }

    /// The `apps` of a GetStatus or Check reply; a Varlink error throws.
    func apps(_ method: String) throws(BenchError) -> [JSONField] {
        let reply = try call(Self.message(method))
        do {
            let root = JSONField(root: try JSONParser.parse(Array(reply)))
            if let error = root.member("error") { throw BenchError("\(method): \((try? error.string()) ?? "error")") }
            guard let apps = root.member("parameters")?.member("apps") else { throw BenchError("\(method): no apps in the reply") }
            return try apps.elements()
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError("\(method): \(error)")
        }
    }
}

enum UnixSocket {
    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8).prefix($0.count - 1)) }
        return address
    }

    static func connect(_ descriptor: Int32, to path: String) -> Int32 {
        var address = address(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    static func bind(_ descriptor: Int32, to path: String) -> Int32 {
        var address = address(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
