import Foundation
import Glibc
import NIOCore
import NIOPosix
import SSVCPosix
import SSVCTestSupport
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
    func supplementaryGroup() async throws {
        #expect(PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [27, 100]).isAllowed(group: 100, ownUID: 61200))
        // A process in group 100 now holds the pid (as after a pid reuse):
        // its /proc entry shows the group, and that must not count.
        let member = try ChildProcess(["setpriv", "--reuid=65534", "--regid=65534", "--groups=100", "sleep", "60"])
        defer { kill(member.pid, SIGKILL) }  // reaped by ChildProcess when released
        // setpriv has set the groups once sleep runs in its place.
        var shown = ""
        _ = await eventually(within: 30, every: 0.01) {
            shown = (try? String(contentsOfFile: "/proc/\(member.pid)/status", encoding: .utf8)) ?? ""
            return shown.contains("Name:\tsleep")
        }
        try #require(shown.contains("Groups:\t100"), "setpriv needs root: \(shown.prefix(200))")
        #expect(!PeerCredentials(pid: member.pid, uid: 65534, gid: 65534).isAllowed(group: 100, ownUID: 61200))
        #expect(!PeerCredentials(pid: 1, uid: 1000, gid: 1000, groups: [0]).isAllowed(group: 0, ownUID: 61200), "gid 0 is never a control group")
    }

    @Test("a real connection carries the peer's uid, pid and supplementary groups from SO_PEERGROUPS")
    func realConnection() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-peer-\(getpid())").path
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let accepted = loop.makePromise(of: PeerCredentials?.self)
        // Children run on `loop` too: the first answer wins, on one thread.
        let answered = NIOLoopBoundBox.makeBoxSendingValue(false, as: Bool.self, eventLoop: loop)
        let answer = { @Sendable (credentials: PeerCredentials?) in
            guard !answered.value else { return }
            answered.value = true
            accepted.succeed(credentials)
        }
        let server = try await ServerBootstrap(group: loop)
            .childChannelInitializer { child in
                PeerCredentials.future(of: child).whenSuccess(answer)
                return child.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        defer {
            server.close(promise: nil)
            unlink(path)
        }
        chmod(path, 0o777)
        // A peer in groups 27 and 100 under another uid: none of them ours,
        // so that reading nothing cannot pass for reading them. Debian's
        // own Python, which any user may run.
        let peerProcess = try ChildProcess([
            "setpriv", "--reuid=65534", "--regid=65534", "--groups=27,100", "/usr/bin/python3", "-c",
            "import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(70)", path,
        ])
        defer { kill(peerProcess.pid, SIGKILL) }  // reaped by ChildProcess when released
        let giveUp = loop.scheduleTask(in: .seconds(60)) { answer(nil) }
        defer { giveUp.cancel() }
        let seen = try await accepted.futureResult.get()
        let peer = try #require(seen, "no connection, or no credentials read; the peer \(peerProcess.isRunning ? "still runs" : "ended")")
        #expect(peer.uid == 65534 && peer.gid == 65534 && peer.pid == peerProcess.pid)
        #expect(peer.groups.sorted() == [27, 100])
    }
}
