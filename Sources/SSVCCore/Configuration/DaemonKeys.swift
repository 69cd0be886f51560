/// The keys of `[daemon]`, each declared once; ssvcd.toml(5) describes
/// each under [daemon] KEYS, and a test holds it to these declarations.
package enum DaemonKeys {
    /// The spreading windows and min-interval-seconds: up to 31 days.
    static let windowSeconds = 0...2_678_400

    package static let stateDirectory = ConfigurationKey<String>("state-dir", .path, "The folder of state.json.")
    package static let socket = ConfigurationKey<String>(
        "socket", .path, default: "/run/ssvc/io.ssvc.Daemon", "The control socket (Varlink) when not given by systemd."
    )
    package static let appsDirectory = ConfigurationKey<String>("apps-dir", .path, default: "/etc/ssvc/apps.d", "The apps directory.")
    package static let language = ConfigurationKey<String>("language", "The language sent to servers and used to choose texts.")
    package static let country = ConfigurationKey<String>("country", "The country sent to servers.")
    package static let controlGroup = ConfigurationKey<String>(
        "control-group", .written("_group name_"), "A group whose members may call Check and Reload besides root."
    )
    package static let timeoutSeconds = ConfigurationKey<Double>(
        "timeout-seconds", range: 0.001...3_600, default: 30, "The limit on connecting, on each read and on a whole request."
    )
    /// `max-response-bytes` when not set, 1 MiB: `ssvcctl evaluate` takes the same.
    package static let defaultMaxResponseBytes = 1 << 20
    package static let maxResponseBytes = ConfigurationKey<Int>(
        "max-response-bytes", range: 1...(64 << 20), default: defaultMaxResponseBytes, "The largest document accepted."
    )
    package static let caFile = ConfigurationKey<String>("ca-file", .path, "PEM certificates trusted besides the system's.")
    package static let minIntervalSeconds = ConfigurationKey<Int>(
        "min-interval-seconds", range: windowSeconds, default: 30, "No app is fetched more often than this."
    )
    package static let firstCheckWindowSeconds = ConfigurationKey<Int>(
        "first-check-window-seconds", range: windowSeconds, default: 600, "An app never checked is first checked within this of the start."
    )
    package static let catchUpWindowSeconds = ConfigurationKey<Int>(
        "catch-up-window-seconds", range: windowSeconds, default: 3_600, "The same for an app whose last check is older than its period."
    )
    package static let idleTimeoutSeconds = ConfigurationKey<Int>(
        "idle-timeout-seconds", range: 1...86_400, default: 60, "A control connection silent this long is closed, unless it watches."
    )
    package static let proxy = ConfigurationKey<String>("proxy", .url, "An http:// proxy for every app, over the environment's.")
    package static let noProxy = ConfigurationKey<[String]>("no-proxy", "Hosts reached without the proxy, over no_proxy.")
    package static let metricsFile = ConfigurationKey<String>(
        "metrics-file", .path, "The Prometheus textfile (default: ssvc.prom beside the socket); \"\" turns it off."
    )
    package static let hooksDirectory = ConfigurationKey<String>(
        "hooks-dir", .path, default: "/etc/ssvc/hooks.d", "Executables run on each status change and notice; \"\" turns hooks off."
    )
    package static let rolloutPosition = ConfigurationKey<Double>(
        "rollout-position", range: 0...1, "This machine's place in every phased rollout, 0 to 1 (default: hashed from the machine id)."
    )

    /// Every `[daemon]` key, in the order the manual page lists them.
    package static let all: [KeyEntry] = [
        stateDirectory.entry, socket.entry, appsDirectory.entry, language.entry, country.entry, controlGroup.entry,
        timeoutSeconds.entry, maxResponseBytes.entry, caFile.entry, minIntervalSeconds.entry, firstCheckWindowSeconds.entry,
        catchUpWindowSeconds.entry, idleTimeoutSeconds.entry, proxy.entry, noProxy.entry,
        ClientIdentityKeys.certificate.entry, ClientIdentityKeys.key.entry, ClientIdentityKeys.keyCredential.entry,
        metricsFile.entry, hooksDirectory.entry, rolloutPosition.entry,
    ]
}
