import NIOCore
import SSVCControl

/// The whole pipeline of a connection past the limits: one
/// `TooManyConnections` error as soon as it is active, then the close.
/// Whatever the client sends is dropped unread.
final class Refusal: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        let reply = context.channel.allocator.buffer(bytes: VarlinkError.tooManyConnections.reply)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
