@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore
import SSVCPosix

/// A blocking Varlink client over a Unix socket, for `ssvcctl` and the
/// benchmark's load generator.
package final class VarlinkClient {
    private let descriptor: Int32
    private var path = ""
    private var replyTimeout: Int?
    /// Bytes received and not yet returned, from `start`.
    private var buffer: [UInt8] = []
    private var start = 0

    package enum Failure: Error, CustomStringConvertible {
        case cannotConnect(path: String, reason: String)
        case connection(String)
        /// The daemon answered with a Varlink error.
        case remote(name: String, parameters: JSONField)

        package var description: String {
            switch self {
            case let .cannotConnect(path, reason): "cannot connect to \(path): \(reason)"
            case let .connection(reason): reason
            case let .remote(name, _): name
            }
        }

        /// The error's name, when it is one the daemon sends.
        package var remoteName: VarlinkErrorName? {
            guard case let .remote(name, _) = self else { return nil }
            return VarlinkErrorName(rawValue: name)
        }
    }

    /// `replyTimeout` seconds without a byte from the daemon is an error;
    /// nil waits for ever (for `Watch`).
    package init(path: String, replyTimeout: Int? = nil) throws(Failure) {
        do {
            descriptor = try UnixSocket.connected(to: path)
        } catch {
            throw .cannotConnect(path: path, reason: Self.explainConnect(path: path, code: error.code))
        }
        self.path = path
        self.replyTimeout = replyTimeout
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

    /// A call as it goes on the socket: made once, it may be sent many times.
    package static func message(_ method: ControlMethod, parameters: [String: String] = [:], more: Bool = false) -> [UInt8] {
        // Strings and a boolean: encoding cannot fail.
        let encoded = (try? JSONEncoder().encode(Call(method: method.rawValue, parameters: parameters, more: more ? true : nil)))
        return VarlinkFraming.frame(encoded.map(Array.init) ?? [])
    }

    /// Sends a call and returns the first reply's parameters as raw JSON
    /// (for decoding); with `more`, read the rest with `nextReply()`.
    package func call(_ method: ControlMethod, parameters: [String: String] = [:], more: Bool = false) throws(Failure) -> [UInt8] {
        try send(Self.message(method, parameters: parameters, more: more))
        return try nextReply()
    }

    /// Writes a message made by `message(_:parameters:more:)`.
    package func send(_ message: [UInt8]) throws(Failure) {
        var sent = 0
        while sent < message.count {
            let count = message.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .connection("the daemon closed the connection") }
            sent += count
        }
    }

    /// The next reply: its `parameters` as raw JSON bytes, or the daemon's error.
    package func nextReply() throws(Failure) -> [UInt8] {
        let root: JSONField
        do {
            root = JSONField(root: try JSONParser.parse(Array(try receive())))
        } catch let error as Failure {
            throw error
        } catch {
            throw .connection("the daemon sent an invalid reply: \(error)")
        }
        if let name = try? root.member("error")?.string() {
            throw .remote(name: name, parameters: root.member("parameters") ?? JSONField(root: .object([])))
        }
        return Array((root.member("parameters")?.value ?? .object([])).canonicalText.utf8)
    }

    /// The next whole message as it came, without its terminator.
    package func receive() throws(Failure) -> ArraySlice<UInt8> {
        while true {
            let end: Int?
            do {
                end = try VarlinkFraming.end(in: buffer[start...], limit: VarlinkFraming.maximumReplyLength)
            } catch {
                throw .connection("the daemon sent \(error)")
            }
            if let end {
                let message = buffer[start..<end]
                start = end + 1
                return message
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let count = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: 65_536))
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + count, $0.count - count, 0) }
            let code = errno
            buffer.removeLast(65_536 - max(received, 0))
            if received < 0 && code == EINTR { continue }
            if received < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
                throw .connection("the daemon at \(path) did not answer within \(replyTimeout ?? 0) s (--timeout)")
            }
            guard received > 0 else { throw .connection("the daemon closed the connection") }
        }
    }

    /// Why a connection to `path` failed, in words that say what to do:
    /// not "is ssvcd running?" when the path is a folder or a plain file.
    static func explainConnect(path: String, code: Int32) -> String {
        var info = stat()
        let exists = stat(path, &info) == 0
        switch code {
        case ENOENT: return "no such socket (is ssvcd running? is --socket right?)"
        case ECONNREFUSED where exists && info.st_mode & S_IFMT == S_IFSOCK:
            return "nobody is listening there (ssvcd stopped without removing its socket?)"
        case ECONNREFUSED, ENOTSOCK:
            if exists && info.st_mode & S_IFMT == S_IFDIR { return "it is a directory, not a socket" }
            if exists && info.st_mode & S_IFMT != S_IFSOCK { return "it is a file, not a socket" }
            return String(cString: strerror(code))
        case EACCES: return "permission denied (the socket or a folder above it is not open to this user)"
        default: return String(cString: strerror(code))
        }
    }
}
