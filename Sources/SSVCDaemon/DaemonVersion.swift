/// The version of ssvc, sent as `User-Agent: ssvcd/<version>`.
public enum DaemonVersion {
    public static let current = "0.1.0"
    public static let userAgent = "ssvcd/\(current)"
}
