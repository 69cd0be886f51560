import SSVCCore

/// The version of ssvc, sent as `User-Agent: ssvcd/<version>`.
public enum DaemonVersion {
    public static let current = SSVCVersion.current
    public static let userAgent = "ssvcd/\(current)"
}
