/// The proxy variables of the daemon's environment, read as curl reads
/// them: `https_proxy` or `HTTPS_PROXY` for https, `http_proxy` (lower case
/// only: `HTTP_PROXY` can be set by a CGI request's `Proxy:` header) for
/// http, `all_proxy` or `ALL_PROXY` for either when those are unset, and
/// `no_proxy` or `NO_PROXY`. Lower case wins; empty means unset.
package struct ProxyEnvironment: Sendable, Equatable {
    package var https: ProxyServer?
    package var http: ProxyServer?
    package var all: ProxyServer?
    package var noProxy: NoProxyList

    package init(https: ProxyServer? = nil, http: ProxyServer? = nil, all: ProxyServer? = nil, noProxy: NoProxyList = .empty) {
        self.https = https
        self.http = http
        self.all = all
        self.noProxy = noProxy
    }

    /// Reads `variables`; a proxy URL that does not parse is an error that
    /// names its variable.
    package init(_ variables: [String: String]) throws(ProxyServer.Invalid) {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = variables[name], !value.trimming(" \t").isEmpty { return (name, value) }
            }
            return nil
        }
        func server(_ names: String...) throws(ProxyServer.Invalid) -> ProxyServer? {
            for name in names {
                guard let value = variables[name], !value.trimming(" \t").isEmpty else { continue }
                do {
                    return try ProxyServer(parsing: value)
                } catch {
                    throw ProxyServer.Invalid(description: "\(name): \(error.description)")
                }
            }
            return nil
        }
        self.init(
            https: try server("https_proxy", "HTTPS_PROXY"), http: try server("http_proxy"),
            all: try server("all_proxy", "ALL_PROXY"),
            noProxy: value("no_proxy", "NO_PROXY").map { NoProxyList(parsing: $0.value) } ?? .empty
        )
    }

    /// The proxy for a URL of `scheme`, before the no-proxy list.
    func server(for scheme: String) -> ProxyServer? {
        (scheme == "https" ? https : scheme == "http" ? http : nil) ?? all
    }
}
