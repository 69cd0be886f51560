@preconcurrency import Glibc
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle
import SSVCCore

/// The Varlink socket: one task per connection in a discarding task group,
/// errors caught per connection, so that no client can take the server or
/// the other clients down.
public final class ControlServer: Service {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    private let listener: NIOAsyncChannel<Connection, Never>
    private let dispatcher: ControlDispatcher
    /// The path to remove on stop; nil for a socket systemd owns.
    private let ownedPath: String?
    /// Open connections, closed by the server when the daemon stops.
    private let open = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])

    public struct BindError: Error, CustomStringConvertible {
        public let description: String
    }

    private init(listener: NIOAsyncChannel<Connection, Never>, dispatcher: ControlDispatcher, ownedPath: String?) {
        self.listener = listener
        self.dispatcher = dispatcher
        self.ownedPath = ownedPath
    }

    /// Serves on the socket systemd passed, or binds `path`: its folder is
    /// created, a stale socket replaced, but a live one (another ssvcd) or a
    /// file that is not a socket is an error. The socket is mode 0666:
    /// anyone may read; `Check` and `Reload` check the caller.
    public static func start(
        path: String, passedSocket: Int32?, idleTimeout: TimeAmount, dispatcher: ControlDispatcher
    ) async throws(BindError) -> ControlServer {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
        let cache = dispatcher.service.statusCache
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { child in
            child.eventLoop.makeCompletedFuture {
                try child.pipeline.syncOperations.addHandler(ByteToMessageHandler(NULFrameDecoder()))
                try child.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                try child.pipeline.syncOperations.addHandler(IdleCloser(), name: "idle-closer")
                try child.pipeline.syncOperations.addHandler(StatusFastPath(cache: cache))
                return try Connection(wrappingChannelSynchronously: child)
            }
        }
        do {
            if let passedSocket {
                let listener = try await bootstrap.bind(passedSocket, childChannelInitializer: initializer)
                return ControlServer(listener: listener, dispatcher: dispatcher, ownedPath: nil)
            }
            try prepare(path)
            let listener = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
            chmod(path, 0o666)
            return ControlServer(listener: listener, dispatcher: dispatcher, ownedPath: path)
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
        if isListening(path) {
            throw BindError(description: "another process is serving \(path) (is ssvcd already running?)")
        }
        unlink(path)
    }

    private static func isListening(_ path: String) -> Bool {
        (try? VarlinkClient(path: path)) != nil
    }

    public func run() async throws {
        defer { if let ownedPath { unlink(ownedPath) } }
        await withGracefulShutdownHandler {
            try? await withThrowingDiscardingTaskGroup { group in
                try await self.listener.executeThenClose { connections in
                    for try await connection in connections {
                        let channel = connection.channel
                        self.open.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
                        group.addTask {
                            await self.serve(connection)
                            self.open.withLockedValue { $0[ObjectIdentifier(channel)] = nil }
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            // Stop accepting, and close every client: none may hold the stop up.
            self.listener.channel.close(promise: nil)
            for channel in self.open.withLockedValue({ Array($0.values) }) { channel.close(promise: nil) }
        }
    }

    /// One connection: calls answered in order; a bad message closes it.
    private func serve(_ connection: Connection) async {
        let peer = await PeerCredentials.of(connection.channel)
        let dispatcher = self.dispatcher
        try? await connection.executeThenClose { inbound, outbound in
            for try await frame in inbound {
                guard let call = try? VarlinkCall(parsing: Array(frame.readableBytesView)) else { return }
                switch await dispatcher.answer(call, peer: peer) {
                case .none:
                    continue
                case let .reply(bytes):
                    try await outbound.write(ByteBuffer(bytes: bytes))
                case let .events(stream):
                    // A watcher may be silent for hours: no idle close, but
                    // stop as soon as it goes away.
                    _ = try? await connection.channel.pipeline.removeHandler(name: "idle-closer").get()
                    let forward = Task {
                        for await event in stream {
                            try await outbound.write(ByteBuffer(bytes: ControlDispatcher.event(event)))
                        }
                    }
                    connection.channel.closeFuture.whenComplete { _ in forward.cancel() }
                    _ = await forward.result
                    return
                }
            }
        }
    }
}
