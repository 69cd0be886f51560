/// An error reply: its name and its (string) parameters.
package struct VarlinkError: Error, Sendable, Equatable {
    package let name: VarlinkErrorName
    package let parameters: [String: String]

    package init(_ name: VarlinkErrorName, _ parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    package static func interfaceNotFound(_ interface: String) -> Self { Self(.interfaceNotFound, ["interface": interface]) }
    package static func methodNotFound(_ method: String) -> Self { Self(.methodNotFound, ["method": method]) }
    package static func invalidParameter(_ parameter: String) -> Self { Self(.invalidParameter, ["parameter": parameter]) }
    package static let expectedMore = Self(.expectedMore)
    /// nil: the call named no app (there was none to find).
    package static func noSuchApp(_ app: String?) -> Self { Self(.noSuchApp, ["app": app ?? ""]) }
    package static let permissionDenied = Self(.permissionDenied)
    package static func invalidConfiguration(_ reason: String) -> Self { Self(.invalidConfiguration, ["reason": reason]) }
    package static let tooManyConnections = Self(.tooManyConnections)
    package static func cannotHold(_ reason: String) -> Self { Self(.cannotHold, ["reason": reason]) }

    /// The reply, NUL-terminated.
    package var reply: [UInt8] {
        VarlinkReply.encode(parameters: parameters, error: name.rawValue)
    }
}
