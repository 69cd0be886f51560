/// Hosts reached without a proxy, in curl's `NO_PROXY` conventions: a
/// comma-separated list of host names (each matching itself and its
/// subdomains, with or without a leading dot), IP addresses (matched
/// exactly; IPv6 with or without brackets), or `*` for every host.
/// Matching ignores case and white space around entries.
package struct NoProxyList: Sendable, Equatable {
    package let entries: [String]

    package init(_ entries: [String]) {
        self.entries = entries.map { Self.normalize($0) }.filter { !$0.isEmpty }
    }

    /// The list in a `NO_PROXY` value.
    package init(parsing value: String) {
        self.init(value.split(separator: ",").map(String.init))
    }

    package static let empty = NoProxyList([])

    /// Whether requests to `host` go direct.
    package func bypasses(_ host: String) -> Bool {
        let host = Self.normalize(host)
        guard !host.isEmpty else { return false }
        for entry in entries {
            if entry == "*" || entry == host { return true }
            // A name matches its subdomains; an address only itself.
            if !Self.isAddress(entry), host.hasSuffix("." + entry) { return true }
        }
        return false
    }

    private static func normalize(_ text: String) -> String {
        var value = Substring(text.trimming(" \t").lowercased())
        if value.hasPrefix("[") && value.hasSuffix("]") { value = value.dropFirst().dropLast() }
        while value.hasPrefix(".") { value = value.dropFirst() }
        if value.hasSuffix(".") { value = value.dropLast() }
        return String(value)
    }

    /// IPv6 (has a colon) or dotted IPv4 (digits and dots only).
    private static func isAddress(_ entry: String) -> Bool {
        entry.contains(":") || entry.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    }
}
