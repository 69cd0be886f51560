import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOTestUtils
import SSVCControl
import SSVCCore
@testable import SSVCDaemon
import Testing

@Suite("control socket pipeline: framing, the status fast path, permissions")
struct ControlPipelineTests {
    @Test("the NUL decoder yields each message whole, however the bytes arrive")
    func decoderChunkings() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [
                (ByteBuffer(string: "{}\u{0}"), [ByteBuffer(string: "{}")]),
                (ByteBuffer(string: "{\"a\":1}\u{0}{\"b\":2}\u{0}"), [ByteBuffer(string: "{\"a\":1}"), ByteBuffer(string: "{\"b\":2}")]),
                (ByteBuffer(string: "\u{0}"), [ByteBuffer(string: "")]),
            ],
            decoderFactory: { NULFrameDecoder() }
        )
    }

    @Test("a message over 64 KiB is an error, before its end arrives")
    func decoderLimit() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(NULFrameDecoder()))
        let big = ByteBuffer(repeating: UInt8(ascii: " "), count: VarlinkFraming.maximumLength + 1)
        #expect(throws: VarlinkFraming.TooLong.self) { try channel.writeInbound(big) }
        // A channel and its pipeline hold each other until it is closed.
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    @Test("a half-written message at the end of the stream is dropped")
    func decoderEOF() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(NULFrameDecoder()))
        try channel.writeInbound(ByteBuffer(string: "{}\u{0}{\"half"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "{}"))
        _ = try channel.finish()
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
    }

    static let cachedReply = Array("{\"parameters\":{\"apps\":[]}}\u{0}".utf8)

    func fastPathChannel(cached apps: [String?]) async throws -> (NIOAsyncTestingChannel, StatusCache) {
        // Longer than the test pool can hold a test back: these tests are
        // about the pipeline, not about expiry.
        let cache = StatusCache(lifetime: 3_600)
        for app in apps { cache.store(Self.cachedReply, for: app, generation: cache.generation) }
        let channel = try await NIOAsyncTestingChannel { channel in
            try channel.pipeline.syncOperations.addHandler(StatusFastPath(cache: cache))
        }
        return (channel, cache)
    }

    @Test("a cached GetStatus is answered on the event loop and goes no further")
    func fastPathAnswers() async throws {
        let (channel, _) = try await fastPathChannel(cached: [nil])
        try await channel.writeInbound(ControlCall.request(.getStatus(app: nil), oneway: false, more: false))
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(bytes: Self.cachedReply))
        #expect(try await channel.readInbound(as: ControlCall.self) == nil)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test("GetStatus without a cached reply, one-way, or with more goes on to the connection's task")
    func fastPathPasses() async throws {
        let (channel, _) = try await fastPathChannel(cached: ["a"])
        for call in [
            ControlCall.request(.getStatus(app: "b"), oneway: false, more: false),
            .request(.getStatus(app: "a"), oneway: true, more: false),
        ] {
            try await channel.writeInbound(call)
            #expect(try await channel.readInbound(as: ControlCall.self) != nil)
            #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil)
        }
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test("while a GetStatus waits for its reply, a cached one waits behind it: replies stay in order")
    func fastPathKeepsOrder() async throws {
        let (channel, _) = try await fastPathChannel(cached: ["a"])
        try await channel.writeInbound(ControlCall.request(.getStatus(app: "b"), oneway: false, more: false))
        try await channel.writeInbound(ControlCall.request(.getStatus(app: "a"), oneway: false, more: false))
        #expect(try await channel.readInbound(as: ControlCall.self) != nil)
        #expect(try await channel.readInbound(as: ControlCall.self) != nil, "a's call passed on too, not answered ahead of b's")
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil)
        // Both replies written (by the task): the cache answers again.
        try await channel.writeOutbound(ByteBuffer(string: "b"))
        try await channel.writeOutbound(ByteBuffer(string: "a"))
        _ = try await channel.readOutbound(as: ByteBuffer.self)
        _ = try await channel.readOutbound(as: ByteBuffer.self)
        try await channel.writeInbound(ControlCall.request(.getStatus(app: "a"), oneway: false, more: false))
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(bytes: Self.cachedReply))
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    @Test("after any other call, every call on the connection goes the ordinary way")
    func fastPathStepsAside() async throws {
        let (channel, _) = try await fastPathChannel(cached: [nil])
        try await channel.writeInbound(ControlCall.request(.watch(app: nil), oneway: false, more: true))
        try await channel.writeInbound(ControlCall.request(.getStatus(app: nil), oneway: false, more: false))
        #expect(try await channel.readInbound(as: ControlCall.self) != nil)
        #expect(try await channel.readInbound(as: ControlCall.self) != nil)
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil)
        _ = try await channel.finish(acceptAlreadyClosed: true)
    }

    /// A dispatcher over a service with no apps, never started.
    func dispatcher() throws -> (ControlDispatcher, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-dispatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        let main = folder.appendingPathComponent("ssvcd.toml")
        try "[daemon]\nstate-dir = \"\(folder.path)/state\"\napps-dir = \"\(folder.path)/apps.d\"\n".write(to: main, atomically: true, encoding: .utf8)
        let overrides = ConfigurationLoader.Overrides(mainFile: main.path)
        let service = CheckService(
            configuration: try ConfigurationLoader.load(overrides, environment: [:]), overrides: overrides, environment: [:],
            state: DaemonState(), store: StateStore(directory: folder.path + "/state"), logger: Logger(label: "test"),
            machineID: "test", machine: MachineFacts()
        )
        return (ControlDispatcher(service: service), folder)
    }

    /// The reply's error name, or "" for a reply that is no error; nil
    /// when there is no reply.
    func replyError(_ answer: ControlDispatcher.Answer) throws -> String? {
        guard case let .reply(bytes) = answer else { return nil }
        #expect(bytes.last == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes.dropLast())) as? [String: Any])
        return object["error"] as? String ?? ""
    }

    @Test("Check and Reload are refused to other users before any handler runs; reads are open")
    func permissions() async throws {
        let (dispatcher, folder) = try dispatcher()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stranger = PeerCredentials(pid: 1, uid: 4_000_123, gid: 4_000_123)
        let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
        for request in [ControlRequest.check(app: nil), .reload] {
            let call = ControlCall.request(request, oneway: false, more: false)
            for peer in [stranger, nil] {
                #expect(try replyError(await dispatcher.answer(call, peer: peer)) == "io.ssvc.Daemon.PermissionDenied")
            }
            #expect(try replyError(await dispatcher.answer(call, peer: root)) == "")
        }
        let status = ControlCall.request(.getStatus(app: nil), oneway: false, more: false)
        #expect(try replyError(await dispatcher.answer(status, peer: stranger)) == "")
        await dispatcher.service.discard()
    }

    @Test("a one-way call gets no reply, a refused one included; a malformed one closes")
    func oneway() async throws {
        let (dispatcher, folder) = try dispatcher()
        defer { try? FileManager.default.removeItem(at: folder) }
        guard case .none = await dispatcher.answer(.request(.getStatus(app: nil), oneway: true, more: false), peer: nil) else {
            Issue.record("a one-way call was answered")
            return
        }
        guard case .none = await dispatcher.answer(.refused(.methodNotFound("io.ssvc.Daemon.X"), oneway: true), peer: nil) else {
            Issue.record("a one-way refusal was answered")
            return
        }
        guard case .close = await dispatcher.answer(ControlCall(parsing: Array("nope".utf8)), peer: nil) else {
            Issue.record("a malformed message did not close the connection")
            return
        }
        await dispatcher.service.discard()
    }
}
