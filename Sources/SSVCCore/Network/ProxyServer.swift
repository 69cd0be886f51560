import FoundationEssentials

/// An HTTP proxy, from a URL written as curl takes it: `http://host:port`,
/// `host:port` (http assumed), with optional `user:password@` (percent-
/// encoded). Without a port, 1080, as curl does.
///
/// `description` hides the user and password, and is what goes into errors, the
/// journal and the status: the credentials go nowhere but the
/// `Proxy-Authorization` header.
package struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    package let host: String
    package let port: Int
    package let user: String?
    package let password: String?

    package struct Invalid: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    package init(host: String, port: Int, user: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
    }

    /// Parses `text`; the error names the URL with its password hidden.
    package init(parsing text: String) throws(Invalid) {
        let trimmed = text.trimming(" \t")
        let written = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let url = URL(string: written), let scheme = url.scheme?.lowercased() else {
            throw Invalid(description: "'\(URLText.masked(trimmed))' is not a proxy URL")
        }
        guard scheme == "http" else {
            throw Invalid(description: "proxy '\(URLText.masked(trimmed))': only http:// proxies are supported, not \(scheme)://")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw Invalid(description: "proxy '\(URLText.masked(trimmed))' names no host")
        }
        let path = url.path(percentEncoded: true)
        guard path.isEmpty || path == "/", url.query == nil, url.fragment == nil else {
            throw Invalid(description: "proxy '\(URLText.masked(trimmed))' has a path; write http://host:port")
        }
        let port = url.port ?? 1080
        guard (1...65_535).contains(port) else {
            throw Invalid(description: "proxy '\(URLText.masked(trimmed))': port \(port) is out of range")
        }
        self.init(
            host: host, port: port,
            user: url.user(percentEncoded: false).flatMap { $0.isEmpty ? nil : $0 },
            password: url.password(percentEncoded: false)
        )
    }

    /// `http://***@host:port` (user and password hidden, as
    /// `URLText.masked` hides them), or `http://host:port` without a user.
    package var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let credentials = user == nil ? "" : "***@"
        return "http://\(credentials)\(shownHost):\(port)"
    }
}
