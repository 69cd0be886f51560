import FoundationEssentials

/// The parts of a request URL that decide how it travels: through which
/// proxy, with which credentials.
struct FetchTarget: Equatable {
    let scheme: String
    /// Lower case; an IPv6 address without its brackets.
    let host: String
    let port: Int?

    init?(_ url: String) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              let host = parsed.host(percentEncoded: false), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        var bare = Substring(host.lowercased())
        if bare.hasPrefix("[") && bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        self.host = String(bare)
        port = parsed.port
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
