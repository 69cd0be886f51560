/// dpkg's database of installed packages (`/var/lib/dpkg/status`): one
/// stanza per package and architecture, as `dpkg-query` reads it.
public struct DpkgStatus: Sendable, Equatable {
    /// One package on one architecture.
    public struct Entry: Sendable, Equatable {
        public var package: String
        public var architecture: String
        /// The third word of `Status:`: `installed`, `config-files`,
        /// `half-installed`, `unpacked`, `half-configured`,
        /// `triggers-awaited`, `triggers-pending` or `not-installed`.
        public var state: String
        public var version: String
        /// `Source:` as written (`openssl`, `openssl (3.0.15-1)`); nil when the source package has the binary's name.
        public var source: String? = nil
    }

    /// By package name.
    public var entries: [String: [Entry]]

    /// Why a package's version cannot be had.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The states in which a package's files are all in place and its
    /// version is the one it runs: `dpkg-query` shows `ii` (or a trigger
    /// still to run) for them.
    static let usableStates: Set<String> = ["installed", "triggers-awaited", "triggers-pending"]

    /// Reads the stanzas, keeping only what a version needs; a stanza
    /// without `Package:` or `Status:` is skipped, as dpkg skips it.
    public init(parsing bytes: [UInt8]) {
        var entries: [String: [Entry]] = [:]
        var fields: [String: String] = [:]
        func finish() {
            if let package = fields["package"], let status = fields["status"] {
                let words = status.split(separator: " ")
                let entry = Entry(
                    package: package, architecture: fields["architecture"] ?? "",
                    state: words.count == 3 ? String(words[2]) : status, version: fields["version"] ?? "",
                    source: fields["source"]
                )
                entries[package, default: []].append(entry)
            }
            fields = [:]
        }
        var lineStart = 0
        for index in 0...bytes.count {
            guard index == bytes.count || bytes[index] == UInt8(ascii: "\n") else { continue }
            let line = bytes[lineStart..<index]
            lineStart = index + 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                finish()
                continue
            }
            // Continuation lines (a description's) and fields ssvc does not need.
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t"),
                  let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            guard ["package", "status", "version", "architecture", "source"].contains(name) else { continue }
            fields[name] = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
        }
        finish()
        self.entries = entries
    }

    /// The installed version of `name`, or `name:architecture`.
    ///
    /// | `name`                                          | result                                   |
    /// |-------------------------------------------------|------------------------------------------|
    /// | not in the database                             | "not installed (dpkg knows nothing of it)" |
    /// | listed, in no usable state                      | "not installed (dpkg state: config-files)" |
    /// | usable on one architecture, or on several with one version | that version                  |
    /// | usable on several with different versions       | asks for `name:architecture`             |
    public func installedVersion(of name: String) throws(Problem) -> String {
        try installed(name).version
    }

    /// The source package `name` was built from, and its version: dpkg's
    /// `Source:` field, whose parenthesised version is given when it
    /// differs from the binary's (a binNMU); without the field, the
    /// package's own name and version. OSV's Debian records name source
    /// packages and their versions.
    public func installedSource(of name: String) throws(Problem) -> (package: String, version: String) {
        let entry = try installed(name)
        guard let source = entry.source?.trimmingSpaces, !source.isEmpty else {
            return (String(name.split(separator: ":", maxSplits: 1).first ?? ""), entry.version)
        }
        let parts = source.split(separator: " ", maxSplits: 1)
        let package = String(parts[0])
        guard parts.count == 2 else { return (package, entry.version) }
        let rest = parts[1].trimmingSpaces
        guard rest.hasPrefix("("), rest.hasSuffix(")"), rest.count > 2 else {
            throw Problem(description: "package \(name): dpkg's Source field '\(DisplayText.escaped(source, limit: 80))' is not 'name (version)'")
        }
        return (package, String(rest.dropFirst().dropLast()).trimmingSpaces)
    }

    private func installed(_ name: String) throws(Problem) -> Entry {
        let parts = name.split(separator: ":", maxSplits: 1)
        let package = String(parts.first ?? "")
        let architecture = parts.count == 2 ? String(parts[1]) : nil
        let listed = (entries[package] ?? []).filter { architecture == nil || $0.architecture == architecture }
        guard !listed.isEmpty else { throw Problem(description: "package \(name) is not installed (dpkg knows nothing of it)") }
        let usable = listed.filter { Self.usableStates.contains($0.state) && !$0.version.isEmpty }
        guard let first = usable.first else {
            let states = Set(listed.map(\.state)).sorted().joined(separator: ", ")
            throw Problem(description: "package \(name) is not installed (dpkg state: \(states))")
        }
        guard usable.allSatisfy({ $0.version == first.version }) else {
            let each = usable.map { "\($0.architecture) \($0.version)" }.joined(separator: ", ")
            throw Problem(description: "package \(name) is installed for several architectures with different versions (\(each)): name one, as \(package):\(usable[0].architecture)")
        }
        return first
    }
}
