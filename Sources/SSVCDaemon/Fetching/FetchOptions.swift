import SSVCCore

/// How one app's requests travel: the proxy choice, its own headers, a
/// bearer token, a client certificate.
package struct FetchOptions: Sendable, Equatable {
    package var proxy: ProxyPolicy
    package var headers: [RequestHeader]
    package var bearerToken: SecretSource?
    package var clientIdentity: ClientIdentity?

    package init(proxy: ProxyPolicy = ProxyPolicy(), headers: [RequestHeader] = [], bearerToken: SecretSource? = nil, clientIdentity: ClientIdentity? = nil) {
        self.proxy = proxy
        self.headers = headers
        self.bearerToken = bearerToken
        self.clientIdentity = clientIdentity
    }
}

extension FetchOptions {
    /// These options for a request to `url` made for a source at `origin`:
    /// the bearer token is for the origin's host, and a request to another
    /// host (a signature, an input's source elsewhere) goes without it.
    package func sending(to url: String, tokenFor origin: String?) -> FetchOptions {
        var options = self
        if FetchTarget(url)?.host != origin.flatMap(FetchTarget.init)?.host { options.bearerToken = nil }
        return options
    }
}

extension AppConfiguration {
    /// The app's settings over the daemon's.
    package func fetchOptions(_ daemon: DaemonSettings) -> FetchOptions {
        // The format's headers first: the app's own replace them.
        let formatHeaders = format.requestHeaders.map { RequestHeader(name: $0.name, value: $0.value) }
        return FetchOptions(
            proxy: proxyPolicy(daemon), headers: formatHeaders + headers, bearerToken: bearerToken, clientIdentity: clientIdentity ?? daemon.clientIdentity
        )
    }

    /// The daemon's proxy settings with the app's `proxy` over them.
    func proxyPolicy(_ daemon: DaemonSettings) -> ProxyPolicy {
        var policy = daemon.proxy
        policy.app = proxy
        return policy
    }

    /// The proxy its configured URL goes through, as the status shows it
    /// (password hidden); nil when direct or a file.
    package func proxyInUse(_ daemon: DaemonSettings) -> String? {
        // The policy alone: `fetchOptions` would copy the headers too.
        let policy = proxyPolicy(daemon)
        // Most machines have no proxy: the URL is not parsed for nothing
        // (each report asks, 1,000 apps at a start; issue 55).
        guard !policy.isDirect, let target = url.flatMap(FetchTarget.init), target.scheme == "http" || target.scheme == "https" else { return nil }
        return policy.server(scheme: target.scheme, host: target.host)?.description
    }
}
