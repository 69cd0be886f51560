@preconcurrency import Glibc
import NIOCore
import SSVCPosix

/// Who is at the other end of a Unix socket, from `SO_PEERCRED`.
public struct PeerCredentials: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32

    /// `struct ucred`, which Glibc's Swift module does not show.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    static func of(_ channel: any Channel) async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let credentials: UCred? = try? await provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        ).get()
        return credentials.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }

    /// Root, the daemon's own user, or a member of `group` (primary or
    /// supplementary, as the peer process holds them now, from /proc).
    ///
    /// The daemon's own user could signal or trace the daemon anyway; under
    /// systemd it is the unit's `ExecReload=ssvcctl reload`, which runs in
    /// the sandbox as the unit's dynamic user.
    func isAllowed(group: UInt32?, ownUID: UInt32 = getuid()) -> Bool {
        if uid == 0 || uid == ownUID { return true }
        guard let group else { return false }
        if gid == group { return true }
        guard let bytes = try? BoundedReader.read(path: "/proc/\(pid)/status", limit: 64 * 1024) else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") }) else { return false }
        return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).contains { UInt32($0) == group }
    }
}
