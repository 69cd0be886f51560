@testable import SSVCControl
import SSVCCore
import Testing

@Suite("control protocol: NUL framing")
struct VarlinkFramingTests {
    @Test("a message ends at the first NUL; without one, more is needed")
    func ends() throws {
        #expect(try VarlinkFraming.end(in: Array("{}\u{0}{\"a\"".utf8)) == 2)
        #expect(try VarlinkFraming.end(in: Array("{\"a\":".utf8)) == nil)
        #expect(try VarlinkFraming.end(in: [UInt8]()) == nil)
        #expect(VarlinkFraming.frame(Array("{}".utf8)) == Array("{}\u{0}".utf8))
    }

    @Test("a message over 64 KiB is refused, whether or not its end has come")
    func tooLong() throws {
        let limit = VarlinkFraming.maximumLength
        #expect(try VarlinkFraming.end(in: [UInt8](repeating: 32, count: limit)) == nil)
        #expect(try VarlinkFraming.end(in: [UInt8](repeating: 32, count: limit) + [0]) == limit)
        #expect(throws: VarlinkFraming.TooLong.self) { try VarlinkFraming.end(in: [UInt8](repeating: 32, count: limit + 1)) }
        #expect(throws: VarlinkFraming.TooLong.self) { try VarlinkFraming.end(in: [UInt8](repeating: 32, count: limit + 1) + [0]) }
    }

    @Test("a client's call is one JSON object and a NUL")
    func clientMessage() throws {
        let message = VarlinkClient.message(.watch, parameters: ["app": "a"], more: true)
        #expect(message.last == 0)
        let root = JSONField(root: try JSONParser.parse(Array(message.dropLast())))
        #expect(try root.member("method")?.string() == "io.ssvc.Daemon.Watch")
        #expect(try root.member("parameters")?.member("app")?.string() == "a")
        #expect(try root.member("more")?.flag() == true)
        guard case .request(.watch(app: "a"), oneway: false, more: true) = ControlCall(parsing: Array(message.dropLast())) else {
            Issue.record("the daemon would not read the client's call back")
            return
        }
    }
}
