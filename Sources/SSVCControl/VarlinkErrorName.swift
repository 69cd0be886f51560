/// The errors the daemon answers with; `ssvcctl` explains them by name.
package enum VarlinkErrorName: String, Sendable, CaseIterable {
    case interfaceNotFound = "org.varlink.service.InterfaceNotFound"
    case methodNotFound = "org.varlink.service.MethodNotFound"
    case invalidParameter = "org.varlink.service.InvalidParameter"
    case expectedMore = "org.varlink.service.ExpectedMore"
    case noSuchApp = "io.ssvc.Daemon.NoSuchApp"
    case permissionDenied = "io.ssvc.Daemon.PermissionDenied"
    case invalidConfiguration = "io.ssvc.Daemon.InvalidConfiguration"
    case tooManyConnections = "io.ssvc.Daemon.TooManyConnections"
    case cannotHold = "io.ssvc.Daemon.CannotHold"
}
