import NIOCore
import SSVCControl

/// Closes a connection that has been silent for the idle timeout, unless it
/// is waiting on a `Watch` (its handler is then removed).
final class IdleCloser: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = ControlCall

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
