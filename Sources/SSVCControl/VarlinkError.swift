/// An error reply: its name and its (string) parameters.
public struct VarlinkError: Error, Sendable, Equatable {
    public let name: VarlinkErrorName
    public let parameters: [String: String]

    public init(_ name: VarlinkErrorName, _ parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public static func interfaceNotFound(_ interface: String) -> Self { Self(.interfaceNotFound, ["interface": interface]) }
    public static func methodNotFound(_ method: String) -> Self { Self(.methodNotFound, ["method": method]) }
    public static func invalidParameter(_ parameter: String) -> Self { Self(.invalidParameter, ["parameter": parameter]) }
    public static let expectedMore = Self(.expectedMore)
    /// nil: the call named no app (there was none to find).
    public static func noSuchApp(_ app: String?) -> Self { Self(.noSuchApp, ["app": app ?? ""]) }
    public static let permissionDenied = Self(.permissionDenied)
    public static func invalidConfiguration(_ reason: String) -> Self { Self(.invalidConfiguration, ["reason": reason]) }
    public static let tooManyConnections = Self(.tooManyConnections)
    public static func cannotHold(_ reason: String) -> Self { Self(.cannotHold, ["reason": reason]) }

    /// The reply, NUL-terminated.
    public var reply: [UInt8] {
        VarlinkReply.encode(parameters: parameters, error: name.rawValue)
    }
}
