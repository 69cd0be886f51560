/// Every method the daemon answers: the one table that `ssvcctl`, the
/// dispatcher, the status fast path and the benchmark name methods from.
package enum ControlMethod: String, CaseIterable, Sendable {
    case getInfo = "org.varlink.service.GetInfo"
    case getInterfaceDescription = "org.varlink.service.GetInterfaceDescription"
    case getStatus = "io.ssvc.Daemon.GetStatus"
    case check = "io.ssvc.Daemon.Check"
    case watch = "io.ssvc.Daemon.Watch"
    case reload = "io.ssvc.Daemon.Reload"
    case hold = "io.ssvc.Daemon.Hold"
    case unhold = "io.ssvc.Daemon.Unhold"

    /// Changes what the daemon does (fetches, reads its configuration, holds an app back):
    /// only root, the daemon's own user and the control group may call it.
    package var mutates: Bool {
        switch self {
        case .check, .reload, .hold, .unhold: true
        case .getInfo, .getInterfaceDescription, .getStatus, .watch: false
        }
    }

    /// The interface part of the name: `io.ssvc.Daemon`.
    package var interface: String {
        String(rawValue[..<rawValue.lastIndex(of: ".")!])
    }

    /// The parameters the method takes; any other is InvalidParameter.
    var parameters: [String] {
        switch self {
        case .getInfo, .reload: []
        case .getInterfaceDescription: ["interface"]
        case .getStatus, .check, .watch, .unhold: ["app"]
        case .hold: ["app", "version"]
        }
    }
}
