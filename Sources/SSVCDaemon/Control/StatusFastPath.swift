import NIOCore
import SSVCControl

/// Answers `GetStatus` from the status cache on the event loop, without a
/// hop to the connection's task, when nothing is outstanding on the
/// connection: replies stay in the order of the calls. Once a connection
/// makes any other call, its calls all go the ordinary way.
///
/// Only while the connection is writable: a client that sends calls and
/// never reads its replies would otherwise have them pile up here without
/// bound. When it is not, the call goes the ordinary way, whose writer
/// waits for the client and whose reader then stops reading it.
final class StatusFastPath: ChannelDuplexHandler {
    typealias InboundIn = ControlCall
    typealias InboundOut = ControlCall
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
        // A plain GetStatus: not one-way, not asking for more.
        guard case let .request(.getStatus(app), oneway: false, more: false) = unwrapInboundIn(data) else {
            passingEverything = true
            return context.fireChannelRead(data)
        }
        if pendingStatus == 0, context.channel.isWritable, let reply = cache.reply(for: app) {
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
}
