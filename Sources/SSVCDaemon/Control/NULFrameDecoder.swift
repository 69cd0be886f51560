import NIOCore

/// Varlink framing: each message ends with a NUL byte. A message longer than
/// `maximumLength` closes the connection rather than filling memory.
struct NULFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    static let maximumLength = 64 * 1024

    struct TooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let end = buffer.readableBytesView.firstIndex(of: 0) else {
            if buffer.readableBytes > Self.maximumLength { throw TooLong() }
            return .needMoreData
        }
        let length = end - buffer.readerIndex
        if length > Self.maximumLength { throw TooLong() }
        let frame = buffer.readSlice(length: length)!
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

/// Closes a connection that has been silent for the idle timeout, unless it
/// is waiting on a `Watch` (its handler is then removed).
final class IdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
