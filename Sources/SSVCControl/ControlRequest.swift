/// A call whose method and parameters have been checked: what a handler
/// receives. Each message is parsed into one of these once.
package enum ControlRequest: Sendable, Equatable {
    case getInfo
    case getInterfaceDescription(interface: String)
    /// nil: every app.
    case getStatus(app: String?)
    case check(app: String?)
    case watch(app: String?)
    case reload
    /// nil version: the running one.
    case hold(app: String, version: String?)
    case unhold(app: String)

    package var method: ControlMethod {
        switch self {
        case .getInfo: .getInfo
        case .getInterfaceDescription: .getInterfaceDescription
        case .getStatus: .getStatus
        case .check: .check
        case .watch: .watch
        case .reload: .reload
        case .hold: .hold
        case .unhold: .unhold
        }
    }
}
