import CSystemd

/// sd_listen_fds(3): sockets systemd opened for this process.
public enum SocketActivation {
    /// The first passed descriptor when systemd passed exactly one to this
    /// process (`LISTEN_PID` is ours); nil otherwise. The variables are
    /// removed so that children do not inherit them.
    public static func passedSocket() -> Int32? {
        let count = sd_listen_fds(1)
        guard count == 1 else { return nil }
        return SD_LISTEN_FDS_START
    }
}
