import NIOCore
import NIOExtras
import SSVCControl

/// Closes the connection when the server quiesces (the daemon is stopping).
final class QuiesceCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ControlCall

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
