/// One message off the socket, parsed once: a call to answer, a call to
/// refuse with a Varlink error, or bytes that are no call at all (the
/// connection is then closed).
package enum ControlCall: Sendable {
    case request(ControlRequest, oneway: Bool, more: Bool)
    case refused(VarlinkError, oneway: Bool)
    case malformed(VarlinkProtocolError)

    package init(parsing bytes: [UInt8]) {
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
        case .hold, .unhold:
            guard case let .success(app?) = call.optionalString("app") else { return .failure(.invalidParameter("app")) }
            guard method == .hold else { return .success(.unhold(app: app)) }
            guard case let .success(version) = call.optionalString("version") else { return .failure(.invalidParameter("version")) }
            return .success(.hold(app: app, version: version))
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
