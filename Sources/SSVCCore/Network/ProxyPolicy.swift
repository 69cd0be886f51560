/// Which proxy a request goes through, if any. An app's own `proxy` wins,
/// then `[daemon]`'s `proxy` and `no-proxy` (each overriding its
/// environment counterpart), then the environment's variables.
package struct ProxyPolicy: Sendable, Equatable {
    /// `proxy = "none"` or `proxy = "http://…"`.
    package enum Setting: Sendable, Equatable {
        case direct
        case server(ProxyServer)

        /// `"none"` (any case) or a proxy URL.
        package init(parsing text: String) throws(ProxyServer.Invalid) {
            self = text.trimming(" \t").lowercased() == "none" ? .direct : .server(try ProxyServer(parsing: text))
        }
    }

    package var environment: ProxyEnvironment
    package var daemon: Setting?
    package var daemonNoProxy: NoProxyList?
    /// The app's own setting: used for every request of the app, the
    /// no-proxy list notwithstanding.
    package var app: Setting?

    package init(environment: ProxyEnvironment = ProxyEnvironment(), daemon: Setting? = nil, daemonNoProxy: NoProxyList? = nil, app: Setting? = nil) {
        self.environment = environment
        self.daemon = daemon
        self.daemonNoProxy = daemonNoProxy
        self.app = app
    }

    /// Whether every request goes direct, whatever its URL: no proxy is
    /// set anywhere, or the app's or the daemon's `proxy` is `none`.
    package var isDirect: Bool {
        switch app ?? daemon {
        case .direct?: true
        case .server?: false
        case nil: environment.https == nil && environment.http == nil && environment.all == nil
        }
    }

    /// The proxy for a request to `host` by `scheme` (`http` or `https`);
    /// nil to go direct. Asked again for each redirect target.
    package func server(scheme: String, host: String) -> ProxyServer? {
        let chosen: Setting
        if let app {
            chosen = app
        } else {
            if (daemonNoProxy ?? environment.noProxy).bypasses(host) { return nil }
            chosen = daemon ?? environment.server(for: scheme.lowercased()).map(Setting.server) ?? .direct
        }
        guard case let .server(server) = chosen else { return nil }
        return server
    }
}
