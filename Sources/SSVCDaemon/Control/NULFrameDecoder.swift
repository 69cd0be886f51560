import NIOCore
import SSVCControl

/// Cuts the byte stream into Varlink messages (`VarlinkFraming`); a message
/// over the limit closes the connection.
struct NULFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let end = try VarlinkFraming.end(in: buffer.readableBytesView) else { return .needMoreData }
        let frame = buffer.readSlice(length: end - buffer.readerIndex)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A half-written message at EOF is dropped.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}

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
