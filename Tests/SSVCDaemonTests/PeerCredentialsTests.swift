import Glibc
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

    @Test("a peer whose supplementary groups hold the control-group may, as /proc shows them now")
    func supplementaryGroup() {
        var groups = [gid_t](repeating: 0, count: 64)
        let count = getgroups(Int32(groups.count), &groups)
        let supplementary = groups.prefix(Int(max(count, 0))).first { $0 != getgid() }
        let me = PeerCredentials(pid: getpid(), uid: 4242, gid: 4242)
        if let supplementary { #expect(me.isAllowed(group: supplementary, ownUID: 61200)) }
        #expect(!me.isAllowed(group: 4243, ownUID: 61200))
    }
}
