@testable import SSVCControl
import SSVCCore
import Testing

/// Each message is parsed once into a typed call; what the daemon refuses,
/// it refuses here, before any handler.
@Suite("control protocol: calls parsed and validated before dispatch")
struct ControlCallTests {
    func parse(_ text: String) -> ControlCall {
        ControlCall(parsing: Array(text.utf8))
    }

    func request(_ text: String) -> ControlRequest? {
        guard case let .request(request, _, _) = parse(text) else { return nil }
        return request
    }

    func refusal(_ text: String) -> VarlinkError? {
        guard case let .refused(error, _) = parse(text) else { return nil }
        return error
    }

    @Test("each method becomes its request, with its parameter")
    func methods() {
        #expect(request(#"{"method":"org.varlink.service.GetInfo"}"#) == .getInfo)
        #expect(request(#"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.ssvc.Daemon"}}"#)
            == .getInterfaceDescription(interface: "io.ssvc.Daemon"))
        #expect(request(#"{"method":"io.ssvc.Daemon.GetStatus"}"#) == .getStatus(app: nil))
        #expect(request(#"{"method":"io.ssvc.Daemon.GetStatus","parameters":{"app":"a"}}"#) == .getStatus(app: "a"))
        #expect(request(#"{"method":"io.ssvc.Daemon.Check","parameters":{"app":"a"}}"#) == .check(app: "a"))
        #expect(request(#"{"method":"io.ssvc.Daemon.Watch","parameters":{},"more":true}"#) == .watch(app: nil))
        #expect(request(#"{"method":"io.ssvc.Daemon.Reload","parameters":{}}"#) == .reload)
    }

    @Test("oneway and more are carried with the request, and with a refusal")
    func flags() {
        guard case let .request(_, oneway, more) = parse(#"{"method":"io.ssvc.Daemon.Watch","more":true,"oneway":false}"#) else {
            Issue.record("not a request")
            return
        }
        #expect(!oneway && more)
        guard case let .refused(_, refusedOneway) = parse(#"{"method":"io.ssvc.Daemon.Nope","oneway":true}"#) else {
            Issue.record("not refused")
            return
        }
        #expect(refusedOneway)
    }

    @Test("unknown methods, interfaces and parameters are refused with Varlink's errors")
    func refusals() {
        #expect(refusal(#"{"method":"io.ssvc.Daemon.Upgrade"}"#) == .methodNotFound("io.ssvc.Daemon.Upgrade"))
        #expect(refusal(#"{"method":"org.varlink.service.Nope"}"#) == .methodNotFound("org.varlink.service.Nope"))
        #expect(refusal(#"{"method":"com.example.Other.GetStatus"}"#) == .interfaceNotFound("com.example.Other"))
        #expect(refusal(#"{"method":"io.ssvc.Daemon.GetStatus","parameters":{"app":5}}"#) == .invalidParameter("app"))
        #expect(refusal(#"{"method":"io.ssvc.Daemon.Check","parameters":{"apps":"a"}}"#) == .invalidParameter("apps"))
        #expect(refusal(#"{"method":"io.ssvc.Daemon.Reload","parameters":{"force":true}}"#) == .invalidParameter("force"))
        #expect(refusal(#"{"method":"org.varlink.service.GetInterfaceDescription"}"#) == .invalidParameter("interface"))
    }

    @Test("what is no call at all is malformed: the connection is closed", arguments: [
        "not json", "[1,2]", #"{"parameters":{}}"#, #"{"method":"NoDot"}"#, #"{"method":"io.ssvc.Daemon.GetStatus","parameters":[]}"#,
        #"{"method":"io.ssvc.Daemon.GetStatus","more":"yes"}"#,
    ])
    func malformed(text: String) {
        guard case .malformed = parse(text) else {
            Issue.record("\(text) was not malformed")
            return
        }
    }

    @Test("only Check, Reload, Hold and Unhold mutate")
    func mutating() {
        #expect(ControlMethod.allCases.filter(\.mutates) == [.check, .reload, .hold, .unhold])
    }

    @Test("the method table and the error names match the interface file the daemon serves")
    func matchesInterfaceFile() {
        let lines = ControlInterface.description.split(separator: "\n")
        let methods = lines.filter { $0.hasPrefix("method ") }.map { "io.ssvc.Daemon." + $0.dropFirst(7).prefix { $0 != "(" } }
        #expect(Set(methods) == Set(ControlMethod.allCases.map(\.rawValue).filter { $0.hasPrefix("io.ssvc.Daemon.") }))
        let errors = lines.filter { $0.hasPrefix("error ") }.map { "io.ssvc.Daemon." + $0.dropFirst(6).prefix { $0 != " " && $0 != "(" } }
        #expect(Set(errors) == Set(VarlinkErrorName.allCases.map(\.rawValue).filter { $0.hasPrefix("io.ssvc.Daemon.") }))
        #expect(ControlInterface.description.hasPrefix("# ssvcd's control interface"))
        #expect(ControlInterface.description.hasSuffix(")\n"), "served as the file is, to its last byte")
    }

    @Test("an error reply names the error and its parameters, NUL-terminated")
    func errorReply() throws {
        let reply = VarlinkError.noSuchApp("x").reply
        #expect(reply.last == 0)
        let root = JSONField(root: try JSONParser.parse(Array(reply.dropLast())))
        #expect(try root.member("error")?.string() == "io.ssvc.Daemon.NoSuchApp")
        #expect(try root.member("parameters")?.member("app")?.string() == "x")
        #expect(root.member("continues") == nil)
    }
}
