import NIOCore
import SSVCCore

/// Answers `GetStatus` from the status cache on the event loop, without a
/// hop to the connection's task, when nothing is outstanding on the
/// connection: replies stay in the order of the calls. Once a connection
/// makes any other call, its calls all go the ordinary way.
final class StatusFastPath: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let cache: StatusCache
    /// GetStatus calls passed on whose replies have not been written yet.
    private var pendingStatus = 0
    private var passingEverything = false

    init(cache: StatusCache) {
        self.cache = cache
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passingEverything else { return context.fireChannelRead(data) }
        let frame = unwrapInboundIn(data)
        guard let call = try? VarlinkCall(parsing: Array(frame.readableBytesView)), let request = Self.statusRequest(call) else {
            passingEverything = true
            return context.fireChannelRead(data)
        }
        if pendingStatus == 0, let reply = cache.reply(for: request.app) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: reply)), promise: nil)
            return
        }
        pendingStatus += 1
        context.fireChannelRead(data)
    }

    /// Each GetStatus passed on gets exactly one reply, written in order.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if pendingStatus > 0 { pendingStatus -= 1 }
        context.write(data, promise: promise)
    }

    /// A plain `GetStatus` call, for one app or (nil) every app.
    private struct StatusRequest {
        let app: String?
    }

    /// Nil when the call is anything else, one-way, or asks for more.
    private static func statusRequest(_ call: VarlinkCall) -> StatusRequest? {
        guard call.interface == ControlDispatcher.interface, call.name == "GetStatus", !call.oneway, !call.more,
              call.unknownParameter(["app"]) == nil, case let .success(app) = call.optionalString("app")
        else { return nil }
        return StatusRequest(app: app)
    }
}
