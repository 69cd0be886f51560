import NIOConcurrencyHelpers
import NIOCore
import SSVCControl

/// Closes a connection that has been silent for the idle timeout, unless it
/// is waiting on a `Watch` (its handler is then removed) or on the answer
/// to a call (a `Check` that reads a large export for an input may take
/// minutes, and its client rightly says nothing meanwhile).
final class IdleCloser: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = ControlCall

    /// Calls taken and not yet answered.
    private let unanswered = NIOLockedValueBox(0)

    func answering() { unanswered.withLockedValue { $0 += 1 } }
    func answered() { unanswered.withLockedValue { $0 -= 1 } }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if unanswered.withLockedValue({ $0 }) > 0 { return }
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
