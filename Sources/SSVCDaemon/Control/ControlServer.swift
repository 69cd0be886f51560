@preconcurrency import Glibc
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle
import SSVCControl
import SSVCCore
import SSVCPosix

/// The Varlink socket: one task per connection in a discarding task group,
/// errors caught and journaled per connection, so that no client can take
/// the server or the other clients down.
package final class ControlServer: Service {
    typealias Connection = NIOAsyncChannel<ControlCall, ByteBuffer>
    /// A connection and its peer's credentials, read at accept: a client
    /// that sends and closes at once is still named (issue 52).
    typealias Accepted = (connection: Connection, peer: PeerCredentials?)

    private let listener: NIOAsyncChannel<Accepted, Never>
    private let dispatcher: ControlDispatcher
    private let logger: Logger
    /// The path to remove on stop; nil for a socket systemd owns.
    private let ownedPath: String?
    /// Closes the listener, then every open connection, when the daemon stops.
    private let quiescing: ServerQuiescingHelper

    package struct BindError: Error, CustomStringConvertible {
        package let description: String
    }

    private init(
        listener: NIOAsyncChannel<Accepted, Never>, dispatcher: ControlDispatcher, logger: Logger,
        ownedPath: String?, quiescing: ServerQuiescingHelper
    ) {
        self.listener = listener
        self.dispatcher = dispatcher
        self.logger = logger
        self.ownedPath = ownedPath
        self.quiescing = quiescing
    }

    /// Serves on the socket systemd passed, or binds `path`: its folder is
    /// created, a stale socket replaced, but a live one (another ssvcd) or a
    /// file that is not a socket is an error. The socket is mode 0666:
    /// anyone may read; `Check` and `Reload` check the caller.
    package static func start(
        path: String, passedSocket: Int32?, dispatcher: ControlDispatcher, logger: Logger,
        idleMemory: IdleMemoryReleaser? = nil, limiter: ConnectionLimiter = ConnectionLimiter(descriptors: 1_024)
    ) async throws(BindError) -> ControlServer {
        let group = MultiThreadedEventLoopGroup.singleton
        let quiescing = ServerQuiescingHelper(group: group)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
        let cache = dispatcher.service.statusCache
        let settings = dispatcher.service.controlSettings
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Accepted> = { child in
            PeerCredentials.future(of: child).flatMapThrowing { peer in
                let uid = peer?.uid
                let pipeline = child.pipeline.syncOperations
                // Past its user's or everyone's share, a connection gets an
                // error and is closed; an admitted one is counted until it closes.
                if let uid {
                    guard limiter.admit(uid) else {
                        try pipeline.addHandler(Refusal())
                        return (try Connection(wrappingChannelSynchronously: child), peer)
                    }
                    child.closeFuture.whenComplete { _ in limiter.release(uid) }
                }
                try pipeline.addHandler(ByteToMessageHandler(NULFrameDecoder()))
                try pipeline.addHandler(CallParser(idleMemory: idleMemory))
                try pipeline.addHandler(QuiesceCloser())
                // The limit in force when the connection opens (a reload changes it for the next).
                try pipeline.addHandler(IdleStateHandler(readTimeout: .seconds(Int64(settings.current.idleTimeoutSeconds))))
                try pipeline.addHandler(IdleCloser(), name: "idle-closer")
                try pipeline.addHandler(StatusFastPath(cache: cache))
                return (try Connection(wrappingChannelSynchronously: child), peer)
            }
        }
        do {
            if let passedSocket {
                do {
                    let listener = try await bootstrap.bind(passedSocket, childChannelInitializer: initializer)
                    return ControlServer(listener: listener, dispatcher: dispatcher, logger: logger, ownedPath: nil, quiescing: quiescing)
                } catch {
                    // Not the configured path: the descriptor systemd passed
                    // (LISTEN_FDS), which a hand-made environment can get wrong.
                    throw BindError(description: "cannot listen on the socket systemd passed (descriptor \(passedSocket), LISTEN_FDS=1): \(error)")
                }
            }
            try prepare(path)
            let listener = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
            chmod(path, 0o666)
            return ControlServer(listener: listener, dispatcher: dispatcher, logger: logger, ownedPath: path, quiescing: quiescing)
        } catch let error as BindError {
            throw error
        } catch {
            throw BindError(description: "cannot listen on \(path): \(error)")
        }
    }

    /// Creates the folder and clears a stale socket from `path`.
    private static func prepare(_ path: String) throws(BindError) {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        do {
            try FileSystem.makeDirectories(folder, mode: 0o755)
        } catch {
            throw BindError(description: error.description)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw BindError(description: "\(path) exists and is not a socket; not replacing it")
        }
        if (try? VarlinkClient(path: path)) != nil {
            throw BindError(description: "another process is serving \(path) (is ssvcd already running?)")
        }
        unlink(path)
    }

    package func run() async throws {
        defer { if let ownedPath { unlink(ownedPath) } }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await self.listener.executeThenClose { connections in
                        for try await accepted in connections {
                            group.addTask { await self.serve(accepted.connection, peer: accepted.peer) }
                        }
                    }
                } catch {
                    // Accepting failed for good (not for want of descriptors:
                    // NIO backs off and retries those): the socket is gone.
                    self.logger.error("the control socket stopped accepting connections: \(error)", metadata: [
                        "SSVC_ERROR": "\(error)",
                    ])
                }
            }
        } onGracefulShutdown: {
            // Stop accepting, and close every client: none may hold the stop up.
            self.quiescing.initiateShutdown(promise: nil)
        }
    }

    /// Calls one connection has made in a row before the other connections
    /// get a turn: a client that pipelines calls holds the daemon's one
    /// thread no longer than these take (issue 52).
    static let callsPerTurn = 8
    /// Answers one connection may have waiting for their writes or their
    /// client; past these, its next calls wait.
    static let waitingAnswers = 64

    /// One connection: calls made in order, and answered in order; a bad
    /// message closes it. Calls are read and made while earlier answers
    /// wait for their writes.
    private func serve(_ connection: Connection, peer: PeerCredentials?) async {
        let closer = try? await connection.channel.pipeline.handler(type: IdleCloser.self).get()
        do {
            try await connection.executeThenClose { inbound, outbound in
                let answers = ReplyQueue(capacity: Self.waitingAnswers)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.reply(answers, on: connection, to: outbound, closer: closer, peer: peer) }
                    // A read that fails (a message past the limit) ends the
                    // connection once the answers already made have gone out.
                    var failure: (any Error)?
                    do {
                        try await self.read(inbound, into: answers, peer: peer, closer: closer)
                    } catch {
                        failure = error
                    }
                    await answers.finish()
                    try await group.waitForAll()
                    if let failure { throw failure }
                }
            }
        } catch {
            // A client that went away mid-reply is no news; anything else
            // (a message over the limit, a failed write) is.
            let level: Logger.Level = error is VarlinkFraming.TooLong || connection.channel.isActive ? .info : .debug
            connectionClosed(peer, because: "\(error)", level: level)
        }
    }

    /// Makes each call in turn and queues its answer, until the client
    /// stops sending, an answer ends the connection, or the replies' side
    /// has gone.
    private func read(
        _ inbound: NIOAsyncChannelInboundStream<ControlCall>, into answers: ReplyQueue, peer: PeerCredentials?, closer: IdleCloser?
    ) async throws {
        var turn = 0
        for try await call in inbound {
            closer?.answering()
            let answer = await dispatcher.answer(call, peer: peer)
            guard await answers.push(answer) else { return }
            switch answer {
            case .close, .events: return
            case .reply, .replyWhenWritten, .none: break
            }
            turn += 1
            if turn == Self.callsPerTurn {
                turn = 0
                await Task.yield()
            }
        }
    }

    /// Writes the answers in order, each change's once its write has
    /// ended; closes the connection when it stops, however it stops.
    private func reply(
        _ answers: ReplyQueue, on connection: Connection, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        closer: IdleCloser?, peer: PeerCredentials?
    ) async throws {
        defer { connection.channel.close(promise: nil) }
        do {
            while let answer = await answers.next() {
                defer { closer?.answered() }
                switch answer {
                case .none:
                    continue
                case let .close(error):
                    connectionClosed(peer, because: "not a Varlink call: \(error)", level: .info)
                    await answers.abandon()
                    return
                case let .reply(bytes):
                    try await outbound.write(ByteBuffer(bytes: bytes))
                case let .replyWhenWritten(write, status):
                    let answered = await dispatcher.service.answered(status, once: write)
                    try await outbound.write(ByteBuffer(bytes: VarlinkReply.encode(parameters: ["app": answered])))
                case let .events(stream):
                    try await forward(stream, on: connection, to: outbound)
                    await answers.abandon()
                    return
                }
            }
        } catch {
            await answers.abandon()
            throw error
        }
    }

    /// Writes `Watch` events until the stream ends or the client goes. A
    /// watcher may be silent for hours: the idle close no longer applies.
    private func forward(
        _ stream: AsyncStream<ControlEvent>, on connection: Connection, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws {
        try await connection.channel.pipeline.removeHandler(name: "idle-closer").get()
        let forwarding = Task {
            for await event in stream {
                try await outbound.write(ByteBuffer(bytes: VarlinkReply.event(event)))
            }
        }
        connection.channel.closeFuture.whenComplete { _ in forwarding.cancel() }
        try await forwarding.value
    }

    /// Lines about connections ended by an error, bounded per user.
    private let refusals = RefusalLog()

    /// A connection ended by an error, journaled with who it was: the
    /// peer's text cut, and at most a few lines per user a minute.
    private func connectionClosed(_ peer: PeerCredentials?, because reason: String, level: Logger.Level) {
        guard logger.logLevel <= level, let line = refusals.line(uid: peer?.uid, reason) else { return }
        let who = peer.map { "pid \($0.pid), uid \($0.uid)" } ?? "an unknown peer"
        logger.log(level: level, "closed the control connection of \(who): \(line)", metadata: ["SSVC_ERROR": "\(DisplayText.cut(reason, bytes: RefusalLog.quotedBytes))"])
    }
}
