import FoundationEssentials

/// `{"parameters": …, "continues"?: true, "error"?: "…"}`, encoded and
/// NUL-terminated, ready for the socket.
package enum VarlinkReply {
    private struct Envelope<P: Encodable>: Encodable {
        let parameters: P
        let continues: Bool?
        let error: String?
    }

    package static func encode<P: Encodable>(parameters: P, continues: Bool = false, error: String? = nil) -> [UInt8] {
        // Replies hold strings, numbers and booleans: encoding cannot fail.
        let envelope = Envelope(parameters: parameters, continues: continues ? true : nil, error: error)
        return VarlinkFraming.frame((try? encoder.encode(envelope)).map(Array.init) ?? Array("{}".utf8))
    }

    /// One `Watch` reply.
    package static func event(_ event: ControlEvent) -> [UInt8] {
        encode(parameters: ["event": event], continues: true)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
