import NIOConcurrencyHelpers

/// The control socket's settings that a reload may change: who besides
/// root may call mutating methods (`control-group`), and how long a silent
/// connection stays open (`idle-timeout-seconds`). Read at every call and
/// at every new connection, so that a reload applies them from the next
/// one on; connections already open keep the idle limit they began with.
package final class ControlSettings: Sendable {
    package struct Values: Sendable, Equatable {
        package var controlGroup: UInt32?
        package var idleTimeoutSeconds: Int

        package init(_ daemon: DaemonSettings) {
            controlGroup = daemon.controlGroupID
            idleTimeoutSeconds = daemon.idleTimeoutSeconds
        }
    }

    private let values: NIOLockedValueBox<Values>

    package init(_ daemon: DaemonSettings) {
        values = NIOLockedValueBox(Values(daemon))
    }

    package var current: Values { values.withLockedValue { $0 } }

    func update(_ daemon: DaemonSettings) {
        values.withLockedValue { $0 = Values(daemon) }
    }
}
