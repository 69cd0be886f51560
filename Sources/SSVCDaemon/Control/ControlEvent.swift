import SSVCCore

/// What `Watch` delivers: a finished check, a message shown, or a reload.
public struct ControlEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case check, notice, reload
    }

    public var kind: Kind
    /// RFC 3339.
    public var at: String
    public var app: AppStatus?
    public var message: UpdateDescription?
}
