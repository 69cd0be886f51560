/// The interfaces the daemon implements, as `GetInterfaceDescription` gives them.
package enum ControlInterface {
    package static let name = "io.ssvc.Daemon"
    package static let serviceName = "org.varlink.service"

    /// `io.ssvc.Daemon.varlink`, as SwiftPM embeds it.
    package static let description = String(decoding: PackageResources.io_ssvc_Daemon_varlink, as: UTF8.self)

    package static let serviceDescription = """
        # The Varlink service interface.
        interface org.varlink.service

        method GetInfo() -> (vendor: string, product: string, version: string, url: string, interfaces: []string)
        method GetInterfaceDescription(interface: string) -> (description: string)

        error InterfaceNotFound (interface: string)
        error MethodNotFound (method: string)
        error MethodNotImplemented (method: string)
        error InvalidParameter (parameter: string)
        error PermissionDenied ()
        error ExpectedMore ()
        """

    /// The description of `interface`; nil for one the daemon does not have.
    package static func description(of interface: String) -> String? {
        switch interface {
        case name: description
        case serviceName: serviceDescription
        default: nil
        }
    }
}
