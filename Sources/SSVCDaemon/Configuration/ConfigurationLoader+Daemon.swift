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
        let caFile = try table.path("ca-file")
        if let caFile {
            do {
                _ = try Fetcher.certificates(caFile)
            } catch let error as BoundedReader.Failure {
                throw ConfigurationError(file: file, key: "daemon.ca-file", problem: error.code == ENOENT ? "\(caFile) does not exist" : error.description)
            } catch let error as Fetcher.NoCertificate {
                throw ConfigurationError(file: file, key: "daemon.ca-file", problem: error.description)
            } catch {
                throw ConfigurationError(file: file, key: "daemon.ca-file", problem: "\(caFile): not PEM certificates (\(error))")
            }
        }
        let controlGroup = try table.string("control-group")
        var controlGroupID: UInt32?
        if let controlGroup {
            guard let entry = getgrnam(controlGroup) else {
                throw ConfigurationError(file: file, key: "daemon.control-group", problem: "no group '\(controlGroup)' on this machine")
            }
            guard entry.pointee.gr_gid != 0 else {
                throw ConfigurationError(file: file, key: "daemon.control-group", problem: "'\(controlGroup)' is gid 0: root may already; name another group")
            }
            controlGroupID = entry.pointee.gr_gid
        }
        let daemonProxy = try proxySetting(table, "proxy")
        if daemonProxy == .direct { throw table.error("proxy", "'none' is for an app; leave [daemon] proxy unset to go direct") }
        let daemonNoProxy = try table.stringArray("no-proxy").map(NoProxyList.init)
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
        let configuredSocket = try table.path("socket")
        let socketPath = socketOverride ?? configuredSocket ?? "/run/ssvc/io.ssvc.Daemon"
        // The runtime folder: systemd's RuntimeDirectory=, else the socket's.
        let runtime = environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            ?? socketPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return DaemonSettings(
            stateDirectory: try table.path("state-dir") ?? stateDefault,
            socketPath: socketPath,
            appsDirectory: try table.path("apps-dir") ?? defaultAppsDirectory,
            language: try table.string("language") ?? locale.language,
            country: try table.string("country") ?? locale.country,
            controlGroup: controlGroup,
            controlGroupID: controlGroupID,
            idleTimeoutSeconds: try table.integer("idle-timeout-seconds", in: ConfigurationRanges.idleTimeoutSeconds) ?? 60,
            timeoutSeconds: try table.number("timeout-seconds", in: ConfigurationRanges.timeoutSeconds) ?? 30,
            maxResponseBytes: try table.integer("max-response-bytes", in: ConfigurationRanges.maxResponseBytes) ?? ConfigurationRanges.defaultMaxResponseBytes,
            caFile: caFile,
            policy: SchedulePolicy(
                firstCheckWindow: Double(try table.integer("first-check-window-seconds", in: ConfigurationRanges.windowSeconds) ?? 600),
                catchUpWindow: Double(try table.integer("catch-up-window-seconds", in: ConfigurationRanges.windowSeconds) ?? 3_600),
                minimumInterval: Double(try table.integer("min-interval-seconds", in: ConfigurationRanges.windowSeconds) ?? 30)
            ),
            proxy: ProxyPolicy(environment: environmentProxies, daemon: daemonProxy, daemonNoProxy: daemonNoProxy),
            clientIdentity: try clientIdentity(table, environment: environment),
            metricsFile: try optionalPath(table, "metrics-file", default: runtime + "/ssvc.prom"),
            hooksDirectory: try optionalPath(table, "hooks-dir", default: "/etc/ssvc/hooks.d"),
            rolloutPosition: try table.number("rollout-position", in: ConfigurationRanges.rolloutPosition)
        )
    }

    /// A path that `""` turns off; `fallback` when absent.
    private static func optionalPath(_ reader: TableReader, _ member: String, default fallback: String) throws(ConfigurationError) -> String? {
        if try reader.string(member) == "" { return nil }
        return try reader.path(member) ?? fallback
    }

    /// The `[daemon]` keys; ssvcd.toml(5) describes each (a test holds it to that).
    static let daemonKeys = [
        "state-dir", "socket", "apps-dir", "language", "country", "control-group", "timeout-seconds",
        "max-response-bytes", "ca-file", "min-interval-seconds", "first-check-window-seconds", "catch-up-window-seconds",
        "idle-timeout-seconds", "proxy", "no-proxy", "client-certificate", "client-key", "client-key-credential",
        "metrics-file", "hooks-dir", "rollout-position",
    ]
}
