import CSystemd

/// Facts about the service manager this process runs under.
public enum Systemd {
    /// True when the machine was booted with systemd as its init
    /// (`sd_booted(3)`: `/run/systemd/system/` exists).
    public static var isBooted: Bool {
        sd_booted() > 0
    }
}
