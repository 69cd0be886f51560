public import SSVCCore

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

    public init(kind: Kind, at: String, app: AppStatus? = nil, message: UpdateDescription? = nil) {
        self.kind = kind
        self.at = at
        self.app = app
        self.message = message
    }
}
