import SSVCCore
import SSVCPosix

/// `offer-windows` and `windows-time-zone` (SPEC §16), in `[daemon]` and
/// in an app, whose own keys are over the daemon's.
extension ConfigurationLoader {
    /// A table's `offer-windows`, nil when not set.
    static func offerWindows(_ reader: TableReader) throws(ConfigurationError) -> [OfferWindows.Window]? {
        guard let value = try reader.read(WindowKeys.offerWindows) else { return nil }
        do {
            return try WindowKeys.windows(value)
        } catch {
            throw reader.error(WindowKeys.offerWindows.name + error.member, error.description)
        }
    }

    /// A table's `windows-time-zone`, read from tzdata; nil when not set.
    static func windowsZone(_ reader: TableReader) throws(ConfigurationError) -> ZoneRules? {
        guard let name = try reader.read(WindowKeys.timeZone) else { return nil }
        do {
            return try ZoneFiles.load(name)
        } catch {
            throw reader.error(WindowKeys.timeZone, error.reason)
        }
    }

    /// An app's offer windows: its own keys over the daemon's; nil when
    /// neither lists windows.
    static func appWindows(_ reader: TableReader, daemon: DaemonSettings) throws(ConfigurationError) -> OfferWindows? {
        let windows = try offerWindows(reader)
        let zone = try windowsZone(reader)
        guard let listed = windows ?? daemon.offerWindows else {
            if zone != nil { throw reader.error(WindowKeys.timeZone, "needs offer-windows, here or in [daemon]") }
            return nil
        }
        return OfferWindows(listed, zone: zone ?? daemon.windowsZone)
    }
}
