import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SSVCDaemon
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 for in-process tests. `answer` says what
/// each request's path gets; every request is recorded with the time on
/// the test's clock when it came.
final class LoopbackHTTPServer: Sendable {
    struct Reply: Sendable {
        var status: Int = 200
        var headers: [(String, String)] = []
        var body: String = ""
    }

    struct Request: Sendable {
        let path: String
        let at: Date
    }

    /// The answer and the record, shared with the connections' handlers.
    private final class Book: Sendable {
        struct Contents: Sendable {
            var answer: @Sendable (String) -> Reply
            var requests: [Request] = []
        }

        let contents: Mutex<Contents>
        let clock: any DaemonClock

        init(clock: any DaemonClock, answer: @escaping @Sendable (String) -> Reply) {
            self.clock = clock
            contents = Mutex(Contents(answer: answer))
        }

        func handle(_ path: String) -> Reply {
            let at = clock.now
            return contents.withLock { contents in
                contents.requests.append(Request(path: path, at: at))
                return contents.answer(path)
            }
        }
    }

    private let book: Book
    private let channel: Channel
    let port: Int

    init(clock: any DaemonClock, answer: @escaping @Sendable (String) -> Reply) async throws {
        let book = Book(clock: clock, answer: answer)
        let bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(Handler(book: book))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.book = book
        channel = bound
        port = bound.localAddress?.port ?? 0
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// What every request gets from now on.
    func answer(_ answer: @escaping @Sendable (String) -> Reply) {
        book.contents.withLock { $0.answer = answer }
    }

    var requests: [Request] { book.contents.withLock { $0.requests } }

    func shutdown() async {
        try? await channel.close()
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let book: Book
        private let path = Mutex("")

        init(book: Book) {
            self.book = book
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case let .head(head):
                path.withLock { $0 = head.uri }
            case .body:
                break
            case .end:
                let reply = book.handle(path.withLock { $0 })
                var headers = HTTPHeaders(reply.headers)
                headers.replaceOrAdd(name: "Content-Length", value: "\(reply.body.utf8.count)")
                let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reply.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
