@preconcurrency import Glibc
import NIOCore
import SSVCPosix

/// Who is at the other end of a Unix socket, as the kernel recorded it
/// when the peer connected: `SO_PEERCRED` and `SO_PEERGROUPS`. Never read
/// from `/proc` later, when the peer may have exited and its pid been
/// reused by another process.
package struct PeerCredentials: Sendable, Equatable {
    package let pid: Int32
    package let uid: UInt32
    package let gid: UInt32
    /// Supplementary groups at connect time; empty when unknown.
    package let groups: [UInt32]

    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// `struct ucred`, which Glibc's Swift module does not show.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Room for the supplementary groups `SO_PEERGROUPS` gives; a peer in
    /// more groups is judged by its primary group alone.
    static let groupCapacity = 1024
    /// Linux's `SO_PEERGROUPS` (since 4.13), which Glibc's module may not name.
    static let peerGroupsOption: Int32 = 59

    /// The peer's credentials, read on the channel's event loop as it is
    /// accepted (before any read: a peer gone at once is still named); nil
    /// when they cannot be had.
    static func future(of channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        )
        return credentials.flatMap { credentials in
            // NIO fills the room with zeros before the call and does not say how
            // much the kernel wrote: zeros past the list are not groups (gid 0
            // may not be a control group, see ConfigurationLoader).
            let list: EventLoopFuture<InlineArray<1024, UInt32>> = provider.unsafeGetSocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: peerGroupsOption)
            )
            return list.map { Optional($0) }.recover { _ in nil }.map { list in
                var groups: [UInt32] = []
                if let list {
                    for index in list.indices where list[index] != 0 { groups.append(list[index]) }
                }
                return Optional(PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: groups))
            }
        }.recover { _ in nil }
    }

    /// Root, the daemon's own user, or a member of `group` (primary or
    /// supplementary, as the peer held them when it connected).
    ///
    /// The daemon's own user could signal or trace the daemon anyway; under
    /// systemd it is the unit's `ExecReload=ssvcctl reload`, which runs in
    /// the sandbox as the unit's dynamic user.
    func isAllowed(group: UInt32?, ownUID: UInt32 = getuid()) -> Bool {
        if uid == 0 || uid == ownUID { return true }
        guard let group, group != 0 else { return false }
        return gid == group || groups.contains(group)
    }
}
