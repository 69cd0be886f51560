import FoundationEssentials
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import SSVCCore

/// A plain-http GET through a proxy in absolute form
/// (`GET http://host/path HTTP/1.1`), the way proxies expect plain http.
/// AsyncHTTPClient would open a `CONNECT` tunnel instead, which most
/// proxies allow to port 443 only. One connection per request, closed
/// after it: checks are hours apart.
enum AbsoluteFormRequest {
    enum Failure: Error {
        case connect(any Error)
        case exchange(any Error)
        case timedOut
        case tooLarge(Int?)
        case closedEarly
    }

    static func get(
        _ url: String, target: FetchTarget, headers: HTTPHeaders, proxy: ProxyServer,
        connectTimeout: TimeAmount, deadline: NIODeadline, maxBytes: Int
    ) async throws(Failure) -> HTTPReply {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(connectTimeout)
                .connect(host: proxy.host, port: proxy.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw .connect(error)
        }
        // The deadline closes the connection, which ends the read below.
        let expired = NIOLockedValueBox(false)
        let timer = channel.channel.eventLoop.scheduleTask(deadline: deadline) {
            expired.withLockedValue { $0 = true }
            channel.channel.close(promise: nil)
        }
        defer { timer.cancel() }

        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url)
        head.headers = headers
        head.headers.replaceOrAdd(name: "Host", value: target.authority)
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        if let user = proxy.user {
            let credentials = Data("\(user):\(proxy.password ?? "")".utf8).base64EncodedString()
            head.headers.replaceOrAdd(name: "Proxy-Authorization", value: "Basic \(credentials)")
        }
        let outcome: Result<HTTPReply, Failure>
        do {
            outcome = try await channel.executeThenClose { inbound, outbound in
                // A proxy may answer (407, 401) and close before it has read
                // the whole request: its answer counts, not the failed write.
                try? await outbound.write(contentsOf: [.head(head), .end(nil)])
                var reply: HTTPReply?
                for try await part in inbound {
                    switch part {
                    case let .head(response):
                        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
                            return .failure(.tooLarge(length))
                        }
                        reply = HTTPReply(status: response.status, headers: response.headers, body: [])
                    case let .body(buffer):
                        guard (reply?.body.count ?? 0) + buffer.readableBytes <= maxBytes else { return .failure(.tooLarge(nil)) }
                        reply?.body.append(contentsOf: buffer.readableBytesView)
                    case .end:
                        if let reply { return .success(reply) }
                    }
                }
                return .failure(.closedEarly)
            }
        } catch {
            throw expired.withLockedValue { $0 } ? .timedOut : .exchange(error)
        }
        switch outcome {
        case let .success(reply): return reply
        case .failure(.closedEarly) where expired.withLockedValue({ $0 }): throw .timedOut
        case let .failure(failure): throw failure
        }
    }
}
