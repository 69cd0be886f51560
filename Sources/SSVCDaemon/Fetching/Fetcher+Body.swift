import AsyncHTTPClient
@preconcurrency import Glibc
import FoundationEssentials
import NIOCore
import SSVCCore
import SSVCPosix

/// A response's body, read to memory or to a file, within its limit and deadline.
extension Fetcher {
    /// " (through proxy http://host:port)", or nothing when direct.
    static func through(_ proxy: ProxyServer?) -> String {
        proxy.map { " (through proxy \($0))" } ?? ""
    }

    func collect(
        _ response: HTTPClientResponse, deadline: NIODeadline, limit: BodyBound, sink: Int32?, limitText: String
    ) async throws(FetchError) -> [UInt8] {
        let length = response.headers.first(name: "Content-Length").flatMap(Int.init)
        if let length, length > limit.bytes {
            throw FetchError("response of \(length) bytes is larger than \(limit)")
        }
        var body: [UInt8] = []
        // Room for the declared length at once: growing by doubling held a
        // 16 MiB page and half of it while it was copied. Pages not written
        // to (a server that declares more than it sends) are never resident.
        if sink == nil, let length, length > 0 { body.reserveCapacity(length) }
        var count = 0
        do {
            for try await chunk in response.body {
                guard count + chunk.readableBytes <= limit.bytes else {
                    throw FetchError("response is larger than \(limit)")
                }
                count += chunk.readableBytes
                if let sink {
                    try Self.write(chunk, to: sink)
                } else {
                    body.append(contentsOf: chunk.readableBytesView)
                }
                if NIODeadline.now() > deadline { throw HTTPClientError.deadlineExceeded }
            }
        } catch let error as FetchError {
            throw error
        } catch {
            if NIODeadline.now() >= deadline { throw FetchError("reading the response took longer than \(limitText)") }
            throw FetchError("reading the response: \(Self.describe(error, url: nil))")
        }
        return body
    }

    /// All of `chunk` to `file`, or an error naming the system's reason (a full disk).
    private static func write(_ chunk: ByteBuffer, to file: Int32) throws(FetchError) {
        let failure: Int32? = chunk.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(file, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw FetchError("writing the download: \(String(cString: strerror(failure)))") }
    }

    func readFile(_ url: String, limit: BodyBound) throws(FetchError) -> FetchOutcome {
        guard let path = URL(string: url)?.path, !path.isEmpty else { throw FetchError("'\(URLText.masked(url))' is not a file URL") }
        do {
            return .body(try BoundedReader.read(path: path, limit: limit.bytes), etag: nil)
        } catch {
            throw FetchError(error.description)
        }
    }
}
