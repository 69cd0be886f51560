import FoundationEssentials
import SSVCCore

/// Answers Varlink calls: the `org.varlink.service` introspection and the
/// `io.ssvc.Daemon` methods. Read-only methods are open to anyone who can
/// connect; `Check` and `Reload` need root or the control group.
public struct ControlDispatcher: Sendable {
    public static let interface = "io.ssvc.Daemon"
    static let serviceInterface = "org.varlink.service"

    let service: CheckService
    let controlGroup: UInt32?

    public init(service: CheckService, controlGroup: UInt32?) {
        self.service = service
        self.controlGroup = controlGroup
    }

    /// What to send back for one call.
    enum Answer {
        case reply([UInt8])
        /// Watch: one reply per event, each with `continues`.
        case events(AsyncStream<ControlEvent>)
        case none
    }

    func answer(_ call: VarlinkCall, peer: PeerCredentials?) async -> Answer {
        let answer = await dispatch(call, peer: peer)
        if call.oneway, case .reply = answer { return .none }
        return answer
    }

    private func dispatch(_ call: VarlinkCall, peer: PeerCredentials?) async -> Answer {
        switch (call.interface, call.name) {
        case (Self.serviceInterface, "GetInfo"):
            return reply(ServiceInfo())
        case (Self.serviceInterface, "GetInterfaceDescription"):
            switch call.optionalString("interface") {
            case .failure, .success(nil):
                return error("org.varlink.service.InvalidParameter", ["parameter": "interface"])
            case let .success(name?):
                switch name {
                case Self.interface: return reply(["description": interfaceDescription])
                case Self.serviceInterface: return reply(["description": Self.serviceDescription])
                default: return error("org.varlink.service.InterfaceNotFound", ["interface": name])
                }
            }
        case (Self.interface, "GetStatus"), (Self.interface, "Check"), (Self.interface, "Watch"):
            if let unknown = call.unknownParameter(["app"]) {
                return error("org.varlink.service.InvalidParameter", ["parameter": unknown])
            }
            guard case let .success(app) = call.optionalString("app") else {
                return error("org.varlink.service.InvalidParameter", ["parameter": "app"])
            }
            switch call.name {
            case "GetStatus":
                let cache = service.statusCache
                if let cached = cache.reply(for: app) { return .reply(cached) }
                let generation = cache.generation
                guard let apps = await service.status(of: app) else { return noSuchApp(app) }
                let answer = Self.encode(VarlinkReply(parameters: ["apps": apps], continues: nil, error: nil))
                cache.store(answer, for: app, generation: generation)
                return .reply(answer)
            case "Check":
                guard peer?.isAllowed(group: controlGroup) == true else { return permissionDenied() }
                guard let apps = await service.checkNow(app) else { return noSuchApp(app) }
                return reply(["apps": apps])
            default:
                guard call.more else { return error("org.varlink.service.ExpectedMore", [String: String]()) }
                guard let events = await service.watch(app) else { return noSuchApp(app) }
                return .events(events)
            }
        case (Self.interface, "Reload"):
            guard peer?.isAllowed(group: controlGroup) == true else { return permissionDenied() }
            do {
                try await service.reload()
                return reply([String: String]())
            } catch {
                return self.error("\(Self.interface).InvalidConfiguration", ["reason": error.description])
            }
        case (Self.interface, _):
            return error("org.varlink.service.MethodNotFound", ["method": call.method])
        case (Self.serviceInterface, _):
            return error("org.varlink.service.MethodNotFound", ["method": call.method])
        default:
            return error("org.varlink.service.InterfaceNotFound", ["interface": call.interface])
        }
    }

    private func noSuchApp(_ app: String?) -> Answer {
        error("\(Self.interface).NoSuchApp", ["app": app ?? ""])
    }

    private func permissionDenied() -> Answer {
        error("\(Self.interface).PermissionDenied", [String: String]())
    }

    private func reply<P: Encodable>(_ parameters: P) -> Answer {
        .reply(Self.encode(VarlinkReply(parameters: parameters, continues: nil, error: nil)))
    }

    private func error<P: Encodable>(_ name: String, _ parameters: P) -> Answer {
        .reply(Self.encode(VarlinkReply(parameters: parameters, continues: nil, error: name)))
    }

    static func event(_ event: ControlEvent) -> [UInt8] {
        encode(VarlinkReply(parameters: ["event": event], continues: true, error: nil))
    }

    static func encode<P: Encodable>(_ reply: VarlinkReply<P>) -> [UInt8] {
        // Replies are strings, numbers and booleans: encoding cannot fail.
        (try? encoder.encode(reply)).map { Array($0) + [0] } ?? Array("{}\u{0}".utf8)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    static let serviceDescription = """
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
}

/// `{"parameters": …, "continues"?: true, "error"?: "…"}`.
struct VarlinkReply<P: Encodable>: Encodable {
    let parameters: P
    let continues: Bool?
    let error: String?
}

struct ServiceInfo: Encodable {
    let vendor = "ssvc"
    let product = "ssvcd"
    let version = DaemonVersion.current
    let url = "file:///usr/share/doc/ssvc/README.md"
    let interfaces = [ControlDispatcher.serviceInterface, ControlDispatcher.interface]
}
