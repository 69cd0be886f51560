@preconcurrency import Glibc
import SSVCCore
import SSVCPosix

/// The `[daemon]` table.
extension ConfigurationLoader {
    static func daemonSettings(
        _ root: ConfigTable, file: String, environment: [String: String], socketOverride: String? = nil
    ) throws(ConfigurationError) -> DaemonSettings {
        let table = try TableReader(root, file: file, key: nil).table("daemon") ?? TableReader(ConfigTable(), file: file, key: "daemon")
        try table.rejectUnknown(daemonKeys)
        let locale = LocaleSettings.fromEnvironment(environment)
        let stateDefault = environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? "/var/lib/ssvc"
        let caFile = try table.path(DaemonKeys.caFile)
        if let caFile {
            do {
                _ = try Fetcher.certificates(caFile)
            } catch let error as BoundedReader.Failure {
                throw table.error(DaemonKeys.caFile, error.code == ENOENT ? "\(caFile) does not exist" : error.description)
            } catch let error as Fetcher.NoCertificate {
                throw table.error(DaemonKeys.caFile, error.description)
            } catch {
                throw table.error(DaemonKeys.caFile, "\(caFile): not PEM certificates (\(error))")
            }
        }
        let controlGroup = try table.read(DaemonKeys.controlGroup)
        var controlGroupID: UInt32?
        if let controlGroup {
            guard let entry = getgrnam(controlGroup) else {
                throw table.error(DaemonKeys.controlGroup, "no group '\(controlGroup)' on this machine")
            }
            guard entry.pointee.gr_gid != 0 else {
                throw table.error(DaemonKeys.controlGroup, "'\(controlGroup)' is gid 0: root may already; name another group")
            }
            controlGroupID = entry.pointee.gr_gid
        }
        let daemonProxy = try proxySetting(table, DaemonKeys.proxy)
        if daemonProxy == .direct { throw table.error(DaemonKeys.proxy, "'none' is for an app; leave [daemon] proxy unset to go direct") }
        let daemonNoProxy = try table.read(DaemonKeys.noProxy).map(NoProxyList.init)
        // With [daemon] proxy set, the environment's proxy URLs are never
        // used, so a broken one there is no reason to refuse the start.
        let environmentProxies: ProxyEnvironment
        do {
            environmentProxies = daemonProxy == nil
                ? try ProxyEnvironment(environment)
                : try ProxyEnvironment(environment.filter { $0.key == "no_proxy" || $0.key == "NO_PROXY" })
        } catch {
            throw ConfigurationError(file: "environment", problem: error.description)
        }
        let socketPath = if let socketOverride { socketOverride } else { try table.pathValue(DaemonKeys.socket) }
        // The runtime folder: systemd's RuntimeDirectory=, else the socket's.
        let runtime = environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            ?? socketPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return DaemonSettings(
            stateDirectory: try table.path(DaemonKeys.stateDirectory) ?? stateDefault,
            socketPath: socketPath,
            appsDirectory: try table.pathValue(DaemonKeys.appsDirectory),
            language: try table.read(DaemonKeys.language) ?? locale.language,
            country: try table.read(DaemonKeys.country) ?? locale.country,
            controlGroup: controlGroup,
            controlGroupID: controlGroupID,
            idleTimeoutSeconds: try table.value(DaemonKeys.idleTimeoutSeconds),
            timeoutSeconds: try table.value(DaemonKeys.timeoutSeconds),
            maxResponseBytes: try table.value(DaemonKeys.maxResponseBytes),
            caFile: caFile,
            policy: SchedulePolicy(
                firstCheckWindow: Double(try table.value(DaemonKeys.firstCheckWindowSeconds)),
                catchUpWindow: Double(try table.value(DaemonKeys.catchUpWindowSeconds)),
                minimumInterval: Double(try table.value(DaemonKeys.minIntervalSeconds))
            ),
            proxy: ProxyPolicy(environment: environmentProxies, daemon: daemonProxy, daemonNoProxy: daemonNoProxy),
            clientIdentity: try clientIdentity(table, environment: environment),
            metricsFile: try optionalPath(table, DaemonKeys.metricsFile, default: runtime + "/ssvc.prom"),
            hooksDirectory: try optionalPath(table, DaemonKeys.hooksDirectory, default: DaemonKeys.hooksDirectory.defaultValue),
            rolloutPosition: try table.read(DaemonKeys.rolloutPosition),
            offerWindows: try offerWindows(table),
            windowsZone: try windowsZone(table) ?? .utc
        )
    }

    /// A path that `""` turns off; `fallback` when absent.
    private static func optionalPath(_ reader: TableReader, _ key: ConfigurationKey<String>, default fallback: String?) throws(ConfigurationError) -> String? {
        if try reader.read(key) == "" { return nil }
        return try reader.path(key) ?? fallback
    }

    /// The `[daemon]` keys; ssvcd.toml(5) describes each (a test holds it to that).
    static let daemonKeys = DaemonKeys.all + WindowKeys.all
}
