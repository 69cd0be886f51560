import NIOConcurrencyHelpers

/// The control socket's settings that a reload may change: who besides
/// root may call mutating methods (`control-group`), and how long a silent
/// connection stays open (`idle-timeout-seconds`). Read at every call and
/// at every new connection, so that a reload applies them from the next
/// one on; connections already open keep the idle limit they began with.
public final class ControlSettings: Sendable {
    public struct Values: Sendable, Equatable {
        public var controlGroup: UInt32?
        public var idleTimeoutSeconds: Int

        public init(_ daemon: DaemonSettings) {
            controlGroup = daemon.controlGroupID
            idleTimeoutSeconds = daemon.idleTimeoutSeconds
        }
    }

    private let values: NIOLockedValueBox<Values>

    public init(_ daemon: DaemonSettings) {
        values = NIOLockedValueBox(Values(daemon))
    }

    public var current: Values { values.withLockedValue { $0 } }

    func update(_ daemon: DaemonSettings) {
        values.withLockedValue { $0 = Values(daemon) }
    }
}
