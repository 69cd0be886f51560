import Foundation
import Glibc
import NIOCore
import NIOPosix
import SSVCPosix
import Testing
@testable import SSVCDaemon

@Suite("PeerCredentials: who may call Check and Reload")
struct PeerCredentialsTests {
    @Test("root and the daemon's own user may; anyone else may not without the control-group")
    func ownUserAndRoot() {
        #expect(PeerCredentials(pid: 1, uid: 0, gid: 0).isAllowed(group: nil, ownUID: 61200))
        #expect(PeerCredentials(pid: 1, uid: 61200, gid: 61200).isAllowed(group: nil, ownUID: 61200))
        #expect(!PeerCredentials(pid: 1, uid: 65534, gid: 65534).isAllowed(group: nil, ownUID: 61200))
        #expect(!PeerCredentials(pid: 1, uid: 61201, gid: 61201).isAllowed(group: 100, ownUID: 61200))
    }

    @Test("a peer whose primary group is the control-group may")
    func primaryGroup() {
        #expect(PeerCredentials(pid: 1, uid: 1000, gid: 100).isAllowed(group: 100, ownUID: 61200))
    }

    @Test("supplementary groups count as the kernel recorded them at connect, not as /proc shows the pid now")
    func supplementaryGroup() throws {
        #expect(PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [27, 100]).isAllowed(group: 100, ownUID: 61200))
        // A process in group 100 now holds the pid (as after a pid reuse):
        // its /proc entry shows the group, and that must not count.
        let member = try ChildProcess(["setpriv", "--reuid=65534", "--regid=65534", "--groups=100", "sleep", "5"])
        defer { kill(member.pid, SIGKILL); member.wait() }
        Thread.sleep(forTimeInterval: 0.2)
        let shown = (try? String(contentsOfFile: "/proc/\(member.pid)/status", encoding: .utf8)) ?? ""
        try #require(shown.contains("Groups:\t100"), "setpriv needs root: \(shown.prefix(200))")
        #expect(!PeerCredentials(pid: member.pid, uid: 65534, gid: 65534).isAllowed(group: 100, ownUID: 61200))
        #expect(!PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [0]).isAllowed(group: 0, ownUID: 61200), "gid 0 is never a control group")
    }

    @Test("a real connection carries the peer's supplementary groups from SO_PEERGROUPS")
    func realConnection() async throws {
        var groups = [gid_t](repeating: 0, count: 64)
        let count = Int(max(getgroups(Int32(groups.count), &groups), 0))
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-peer-\(getpid())").path, cleanupExistingSocketFile: true) { child in
                child.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child) }
            }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-peer-\(getpid())").path
        defer { unlink(path) }
        let client = try UnixSocket.connected(to: path)
        defer { close(client) }
        try await server.executeThenClose { connections in
            for try await connection in connections {
                let peer = await PeerCredentials.of(connection.channel)
                try await connection.executeThenClose { _, _ in }
                #expect(peer?.uid == getuid() && peer?.pid == getpid())
                #expect(Set(peer?.groups ?? [1]) == Set(groups.prefix(count).filter { $0 != 0 }))
                break
            }
        }
    }
}
