/// The version of ssvc, one place for the daemon, the client and the package.
public enum SSVCVersion {
    public static let current = "0.1.0"
}
