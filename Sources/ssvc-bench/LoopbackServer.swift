import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1 answering every request with one
/// document, without an ETag: each check fetches the whole body, as curl does.
final class LoopbackServer {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    init(body: String) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let document = ByteBuffer(string: body)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(DocumentHandler(body: document))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        port = channel.localAddress?.port ?? 0
    }

    var url: String { "http://127.0.0.1:\(port)/version.json" }

    func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

private final class DocumentHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let body: ByteBuffer

    init(body: ByteBuffer) { self.body = body }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: [
            "Content-Type": "application/json", "Content-Length": "\(body.readableBytes)",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
