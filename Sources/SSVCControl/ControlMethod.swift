/// Every method the daemon answers: the one table that `ssvcctl`, the
/// dispatcher, the status fast path and the benchmark name methods from.
public enum ControlMethod: String, CaseIterable, Sendable {
    case getInfo = "org.varlink.service.GetInfo"
    case getInterfaceDescription = "org.varlink.service.GetInterfaceDescription"
    case getStatus = "io.ssvc.Daemon.GetStatus"
    case check = "io.ssvc.Daemon.Check"
    case watch = "io.ssvc.Daemon.Watch"
    case reload = "io.ssvc.Daemon.Reload"

    /// Changes what the daemon does (fetches, reads its configuration):
    /// only root, the daemon's own user and the control group may call it.
    public var mutates: Bool {
        switch self {
        case .check, .reload: true
        case .getInfo, .getInterfaceDescription, .getStatus, .watch: false
        }
    }

    /// The interface part of the name: `io.ssvc.Daemon`.
    public var interface: String {
        String(rawValue[..<rawValue.lastIndex(of: ".")!])
    }

    /// The parameters the method takes; any other is InvalidParameter.
    var parameters: [String] {
        switch self {
        case .getInfo, .reload: []
        case .getInterfaceDescription: ["interface"]
        case .getStatus, .check, .watch: ["app"]
        }
    }
}

/// A call whose method and parameters have been checked: what a handler
/// receives. Each message is parsed into one of these once.
public enum ControlRequest: Sendable, Equatable {
    case getInfo
    case getInterfaceDescription(interface: String)
    /// nil: every app.
    case getStatus(app: String?)
    case check(app: String?)
    case watch(app: String?)
    case reload

    public var method: ControlMethod {
        switch self {
        case .getInfo: .getInfo
        case .getInterfaceDescription: .getInterfaceDescription
        case .getStatus: .getStatus
        case .check: .check
        case .watch: .watch
        case .reload: .reload
        }
    }
}

/// One message off the socket, parsed once: a call to answer, a call to
/// refuse with a Varlink error, or bytes that are no call at all (the
/// connection is then closed).
public enum ControlCall: Sendable {
    case request(ControlRequest, oneway: Bool, more: Bool)
    case refused(VarlinkError, oneway: Bool)
    case malformed(VarlinkProtocolError)

    public init(parsing bytes: [UInt8]) {
        let call: VarlinkCall
        do {
            call = try VarlinkCall(parsing: bytes)
        } catch {
            self = .malformed(error)
            return
        }
        switch Self.request(call) {
        case let .success(request): self = .request(request, oneway: call.oneway, more: call.more)
        case let .failure(error): self = .refused(error, oneway: call.oneway)
        }
    }

    private static func request(_ call: VarlinkCall) -> Result<ControlRequest, VarlinkError> {
        guard let method = ControlMethod(rawValue: call.method) else {
            let known = ControlMethod.allCases.contains { $0.interface == call.interface }
            return .failure(known ? .methodNotFound(call.method) : .interfaceNotFound(call.interface))
        }
        if let unknown = call.unknownParameter(method.parameters) { return .failure(.invalidParameter(unknown)) }
        switch method {
        case .getInfo: return .success(.getInfo)
        case .reload: return .success(.reload)
        case .getInterfaceDescription:
            guard case let .success(name?) = call.optionalString("interface") else { return .failure(.invalidParameter("interface")) }
            return .success(.getInterfaceDescription(interface: name))
        case .getStatus, .check, .watch:
            guard case let .success(app) = call.optionalString("app") else { return .failure(.invalidParameter("app")) }
            switch method {
            case .getStatus: return .success(.getStatus(app: app))
            case .check: return .success(.check(app: app))
            default: return .success(.watch(app: app))
            }
        }
    }
}
