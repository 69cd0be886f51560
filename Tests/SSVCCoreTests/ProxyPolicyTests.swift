import Testing
import SSVCCore

@Suite("ProxyPolicy: app, then [daemon], then the environment")
struct ProxyPolicyTests {
    let envProxy = ProxyServer(host: "env-proxy", port: 3128)
    let allProxy = ProxyServer(host: "all-proxy", port: 3128)
    let daemonProxy = ProxyServer(host: "daemon-proxy", port: 8080)
    let appProxy = ProxyServer(host: "app-proxy", port: 9090)

    @Test("curl's variables: https_proxy before HTTPS_PROXY, http_proxy only in lower case, ALL_PROXY as the fallback")
    func environment() throws {
        let variables = ["HTTPS_PROXY": "upper:1", "https_proxy": "env-proxy:3128", "HTTP_PROXY": "ignored:1", "ALL_PROXY": "all-proxy:3128"]
        let environment = try ProxyEnvironment(variables)
        let policy = ProxyPolicy(environment: environment)
        #expect(policy.server(scheme: "https", host: "a.example") == envProxy)
        #expect(policy.server(scheme: "http", host: "a.example") == allProxy, "HTTP_PROXY is not read")
        #expect(try ProxyEnvironment(["HTTPS_PROXY": "upper:1"]).https == ProxyServer(host: "upper", port: 1))
        #expect(try ProxyEnvironment(["https_proxy": "", "HTTPS_PROXY": "upper:1"]).https == ProxyServer(host: "upper", port: 1))
        #expect(ProxyPolicy(environment: try ProxyEnvironment([:])).server(scheme: "https", host: "a.example") == nil)
    }

    @Test("a bad variable is an error naming it, without its password")
    func badVariable() {
        do {
            _ = try ProxyEnvironment(["https_proxy": "ftp://ops:hunter2@proxy:21"])
            Issue.record("accepted an ftp proxy")
        } catch {
            #expect(error.description.hasPrefix("https_proxy: "), "\(error.description)")
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test("no_proxy before NO_PROXY; [daemon] proxy and no-proxy each override their variable")
    func daemonOverrides() throws {
        let environment = try ProxyEnvironment(["https_proxy": "env-proxy:3128", "no_proxy": "near.example", "NO_PROXY": "far.example"])
        var policy = ProxyPolicy(environment: environment)
        #expect(policy.server(scheme: "https", host: "near.example") == nil)
        #expect(policy.server(scheme: "https", host: "far.example") == envProxy)
        policy.daemon = .server(daemonProxy)
        #expect(policy.server(scheme: "https", host: "far.example") == daemonProxy)
        #expect(policy.server(scheme: "https", host: "near.example") == nil, "the environment's no-proxy still applies")
        policy.daemonNoProxy = NoProxyList(["far.example"])
        #expect(policy.server(scheme: "https", host: "near.example") == daemonProxy)
        #expect(policy.server(scheme: "https", host: "far.example") == nil)
        policy.daemon = .direct
        #expect(policy.server(scheme: "https", host: "near.example") == nil)
    }

    @Test("an app's proxy = \"none\" or a URL overrides both, the no-proxy lists included")
    func appOverrides() throws {
        let environment = try ProxyEnvironment(["https_proxy": "env-proxy:3128", "no_proxy": "*"])
        let policy = ProxyPolicy(environment: environment, daemon: .server(daemonProxy), app: try .init(parsing: "http://app-proxy:9090"))
        #expect(policy.server(scheme: "https", host: "a.example") == appProxy)
        let direct = ProxyPolicy(environment: try ProxyEnvironment(["https_proxy": "env-proxy:3128"]), app: try .init(parsing: "None"))
        #expect(direct.server(scheme: "https", host: "a.example") == nil)
    }

    @Test("isDirect, the status's shortcut, holds only where every request goes direct, and holds where nothing names a proxy or proxy = \"none\" wins")
    func isDirectIsSound() throws {
        let environments = try [[:], ["https_proxy": "env-proxy:3128"], ["http_proxy": "env-proxy:3128"], ["ALL_PROXY": "all-proxy:3128"]]
            .map { try ProxyEnvironment($0) }
        let settings: [ProxyPolicy.Setting?] = [nil, .direct, .server(daemonProxy)]
        var direct = 0
        for environment in environments {
            for daemon in settings {
                for app in settings {
                    for noProxy in [nil, NoProxyList(["near.example"])] {
                        let policy = ProxyPolicy(environment: environment, daemon: daemon, daemonNoProxy: noProxy, app: app)
                        let servers = ["http", "https"].flatMap { scheme in
                            ["near.example", "far.example"].compactMap { policy.server(scheme: scheme, host: $0) }
                        }
                        // A shortcut that says direct while a request would go
                        // through a proxy would hide that proxy from the status.
                        if policy.isDirect { #expect(servers.isEmpty, "\(policy) is called direct but uses \(servers)") }
                        let named = app.map { $0 != .direct } ?? daemon.map { $0 != .direct }
                            ?? (environment.https != nil || environment.http != nil || environment.all != nil)
                        #expect(policy.isDirect == !named, "\(policy)")
                        if policy.isDirect { direct += 1 }
                    }
                }
            }
        }
        // Nothing set (2 no-proxy lists), daemon none with no app setting (4 × 2), app none (4 × 3 × 2).
        #expect(direct == 2 + 8 + 24)
    }
}
