import SSVCCore

/// What `Watch` delivers: a finished check, a message shown, a reload, a
/// phased offer made, or a hold set or lifted.
package struct ControlEvent: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable {
        case check, notice, reload
        /// A phased offer's time came: the app's status changed without a fetch.
        case offer
        /// A hold was set or lifted, or a reload changed the app's limits:
        /// what the app is offered was settled again, without a fetch.
        case hold
        /// The advisories affecting the app changed.
        case advisory
        /// The app's lifecycle state changed (end of life, SPEC §15).
        case lifecycle
        /// A restart became pending, or stopped being so.
        case restart
    }

    package var kind: Kind
    /// RFC 3339.
    package var at: String
    package var app: AppStatus?
    package var message: UpdateDescription?

    package init(kind: Kind, at: String, app: AppStatus? = nil, message: UpdateDescription? = nil) {
        self.kind = kind
        self.at = at
        self.app = app
        self.message = message
    }
}
