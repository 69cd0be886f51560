import CSystemd

/// Sockets systemd opened for this process (sd_listen_fds(3), read by
/// `ssvc_listen_fds`).
public enum SocketActivation {
    /// The first passed descriptor when systemd passed exactly one to this
    /// process (`LISTEN_PID` is ours); nil otherwise. The variables are
    /// removed so that children do not inherit them.
    public static func passedSocket() -> Int32? {
        guard ssvc_listen_fds() == 1 else { return nil }
        return 3
    }
}
