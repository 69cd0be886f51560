@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore

/// A blocking Varlink client over a Unix socket, for `ssvcctl`.
public final class VarlinkClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    public enum Failure: Error, CustomStringConvertible {
        case cannotConnect(path: String, reason: String)
        case connection(String)
        /// The daemon answered with a Varlink error.
        case remote(name: String, parameters: JSONField)

        public var description: String {
            switch self {
            case let .cannotConnect(path, reason): "cannot connect to \(path): \(reason) (is ssvcd running?)"
            case let .connection(reason): reason
            case let .remote(name, _): name
            }
        }
    }

    /// `replyTimeout` seconds without a byte from the daemon is an error;
    /// nil waits for ever (for `Watch`).
    public init(path: String, replyTimeout: Int? = nil) throws(Failure) {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotConnect(path: path, reason: String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw .cannotConnect(path: path, reason: "path too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotConnect(path: path, reason: reason)
        }
        if let replyTimeout {
            var limit = timeval(tv_sec: replyTimeout, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    deinit { close(descriptor) }

    private struct Call: Encodable {
        let method: String
        let parameters: [String: String]
        let more: Bool?
    }

    /// Sends a call and returns the first reply's raw bytes (for decoding) ;
    /// with `more`, read the rest with `nextReply()`.
    public func call(_ method: String, parameters: [String: String] = [:], more: Bool = false) throws(Failure) -> [UInt8] {
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(Call(method: method, parameters: parameters, more: more ? true : nil))
        } catch {
            throw .connection("cannot encode the call: \(error)")
        }
        var message = Array(encoded) + [0]
        while !message.isEmpty {
            let written = message.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw .connection("the daemon closed the connection") }
            message.removeFirst(written)
        }
        return try nextReply()
    }

    /// The next reply: its `parameters` as raw JSON bytes, or the daemon's error.
    public func nextReply() throws(Failure) -> [UInt8] {
        let frame = try readFrame()
        let root: JSONField
        do {
            root = JSONField(root: try JSONParser.parse(frame))
        } catch {
            throw .connection("the daemon sent an invalid reply: \(error)")
        }
        if let name = try? root.member("error")?.string() {
            throw .remote(name: name, parameters: root.member("parameters") ?? JSONField(root: .object([])))
        }
        return Array((root.member("parameters")?.value ?? .object([])).canonicalText.utf8)
    }

    private func readFrame() throws(Failure) -> [UInt8] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let frame = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                return frame
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw .connection("the daemon did not answer in time")
            }
            guard count > 0 else { throw .connection("the daemon closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
