import FoundationEssentials
import SSVCCore

/// The parts of a request URL that decide how it travels: through which
/// proxy, with which credentials.
struct FetchTarget: Equatable {
    let scheme: String
    /// Lower case; an IPv6 address without its brackets.
    let host: String
    let port: Int?

    /// Nil for anything `problem(with:)` would name.
    init?(_ url: String) {
        guard Self.problem(with: url) == nil, let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              let host = parsed.host(percentEncoded: false)
        else { return nil }
        self.scheme = scheme
        var bare = Substring(host.lowercased())
        if bare.hasPrefix("[") && bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        self.host = String(bare)
        port = parsed.port
    }

    /// What keeps `url` from being fetched over http or https, in words;
    /// nil when nothing does: the rule of an app's `url`.
    static func problem(with url: String) -> String? {
        AppKeyRules.httpURLProblem(url)
    }

    /// `host:port` with the scheme's port when none is written, for messages.
    var hostAndPort: String {
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(shownHost):\(port ?? (scheme == "https" ? 443 : 80))"
    }

    /// `host[:port]` as a `Host` header carries it.
    var authority: String {
        (host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host) + (port.map { ":\($0)" } ?? "")
    }

    /// localhost, 127.0.0.0/8 or ::1: a request that never leaves the machine.
    var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in !part.isEmpty && part.allSatisfy(\.isNumber) }
    }

    static func isLoopback(_ url: String) -> Bool {
        FetchTarget(url)?.isLoopback == true
    }
}
