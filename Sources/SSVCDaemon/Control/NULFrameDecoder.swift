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
