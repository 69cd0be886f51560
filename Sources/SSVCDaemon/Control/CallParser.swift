import NIOCore
import SSVCControl

/// Parses each message into a `ControlCall`, once: the fast path and the
/// connection's task both take the parsed call. Each message counts as
/// work for `IdleMemoryReleaser`.
final class CallParser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ControlCall

    private let idleMemory: IdleMemoryReleaser?

    init(idleMemory: IdleMemoryReleaser? = nil) {
        self.idleMemory = idleMemory
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        idleMemory?.noteActivity()
        let frame = unwrapInboundIn(data)
        context.fireChannelRead(wrapInboundOut(ControlCall(parsing: Array(frame.readableBytesView))))
    }
}
