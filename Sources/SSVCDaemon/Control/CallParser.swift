import NIOCore
import SSVCControl

/// Parses each message into a `ControlCall`, once: the fast path and the
/// connection's task both take the parsed call.
final class CallParser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ControlCall

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        context.fireChannelRead(wrapInboundOut(ControlCall(parsing: Array(frame.readableBytesView))))
    }
}
