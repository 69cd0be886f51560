import SSVCControl
import SSVCCore

/// Answers parsed calls: the `org.varlink.service` introspection and the
/// `io.ssvc.Daemon` methods. A method that `mutates` is refused before any
/// handler runs unless the caller is root, the daemon's own user or in the
/// control group; the rest are open to anyone who can connect.
/// The control group is the one in force at the call (`ControlSettings`):
/// a reload that changes it applies from the next call on.
package struct ControlDispatcher: Sendable {
    let service: CheckService

    package init(service: CheckService) {
        self.service = service
    }

    /// What to send back for one call.
    enum Answer: Sendable {
        case reply([UInt8])
        /// A hold or a lift: its app, answered once the write that carries
        /// it has ended (SPEC §14), with a note when that write could not
        /// put it on disk. The connection reads its next calls meanwhile,
        /// so that pipelined changes share one write.
        case replyWhenWritten(StateWriter.Ticket, AppStatus)
        /// Watch: one reply per event, each with `continues`.
        case events(AsyncStream<ControlEvent>)
        case none
        /// Not a Varlink call: the connection is closed.
        case close(VarlinkProtocolError)
    }

    func answer(_ call: ControlCall, peer: PeerCredentials?) async -> Answer {
        switch call {
        case let .malformed(error):
            return .close(error)
        case let .refused(error, oneway):
            return oneway ? Answer.none : .reply(error.reply)
        case let .request(request, oneway, more):
            let answer: Answer
            if request.method.mutates, peer?.isAllowed(group: service.controlSettings.current.controlGroup) != true {
                answer = .reply(VarlinkError.permissionDenied.reply)
            } else {
                answer = await dispatch(request, more: more, caller: peer?.uid)
            }
            if oneway {
                switch answer {
                case .reply, .replyWhenWritten: return Answer.none
                default: break
                }
            }
            return answer
        }
    }

    /// Runs one permitted request.
    private func dispatch(_ request: ControlRequest, more: Bool, caller: UInt32?) async -> Answer {
        switch request {
        case .getInfo:
            return reply(ServiceInfo())
        case let .getInterfaceDescription(name):
            guard let description = ControlInterface.description(of: name) else {
                return .reply(VarlinkError.interfaceNotFound(name).reply)
            }
            return reply(["description": description])
        case let .getStatus(app):
            let cache = service.statusCache
            if let cached = cache.reply(for: app) { return .reply(cached) }
            let generation = cache.generation
            guard let apps = await service.status(of: app) else { return .reply(VarlinkError.noSuchApp(app).reply) }
            let answer = VarlinkReply.encode(parameters: ["apps": apps])
            cache.store(answer, for: app, generation: generation)
            return .reply(answer)
        case let .check(app):
            guard let apps = await service.checkNow(app) else { return .reply(VarlinkError.noSuchApp(app).reply) }
            return reply(["apps": apps])
        case let .watch(app):
            guard more else { return .reply(VarlinkError.expectedMore.reply) }
            guard let events = await service.watch(app) else { return .reply(VarlinkError.noSuchApp(app).reply) }
            return .events(events)
        case .reload:
            do {
                try await service.reload()
                return reply([String: String]())
            } catch {
                return .reply(VarlinkError.invalidConfiguration(error.description).reply)
            }
        case let .hold(app, version):
            do {
                let (status, write) = try await service.holding(app, at: version, caller: caller)
                return after(write, status)
            } catch {
                switch error {
                case .noSuchApp: return .reply(VarlinkError.noSuchApp(app).reply)
                case let .cannot(reason): return .reply(VarlinkError.cannotHold(reason).reply)
                }
            }
        case let .unhold(app):
            guard let (status, write) = await service.unholding(app, caller: caller) else { return .reply(VarlinkError.noSuchApp(app).reply) }
            return after(write, status)
        }
    }

    private func reply<P: Encodable>(_ parameters: P) -> Answer {
        .reply(VarlinkReply.encode(parameters: parameters))
    }

    /// A hold's or a lift's answer, `(app: App)`, once `write` has ended.
    private func after(_ write: StateWriter.Ticket?, _ status: AppStatus) -> Answer {
        guard let write else { return reply(["app": status]) }
        return .replyWhenWritten(write, status)
    }
}

struct ServiceInfo: Encodable {
    let vendor = "ssvc"
    let product = "ssvcd"
    let version = DaemonVersion.current
    let url = "file:///usr/share/doc/ssvc/README.md.gz"
    let interfaces = [ControlInterface.serviceName, ControlInterface.name]
}
