import FoundationEssentials
import SSVCControl
import SSVCCore
import SSVCSigning

/// Every parser of outside input, each a function of bytes that must
/// return (never crash, trap or hang, whatever the bytes) and, where an
/// oracle is at hand, agree with it. A disagreement is a trap, which
/// libFuzzer reports as a crash with the input.
enum FuzzTarget: String, CaseIterable {
    case json, ssvc, turkcell, itunes, github, pointers, rules, minisign, varlink, state, times, proxy, dpkg, versions, pep440, config, toml, zip, cvss, osv

    /// A fixed clock and machine, so that a run can be repeated.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func context(_ running: String, scheme: VersionScheme = .dotted, settings: FormatSettings = FormatSettings()) -> EvaluationContext {
        EvaluationContext(
            running: RunningVersion(key: running, scheme: scheme), appID: "io.ssvc.fuzz", locale: LocaleSettings(language: "en", country: "TR"),
            now: now, formatSettings: settings
        )
    }

    /// `bytes` split at the first line feed: a setting, then a document.
    static func split(_ bytes: [UInt8]) -> (head: String, rest: [UInt8]) {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return ("", bytes) }
        return (String(decoding: bytes[..<newline], as: UTF8.self), Array(bytes[(newline + 1)...]))
    }

    func run(_ bytes: [UInt8]) {
        switch self {
        case .json:
            let parsed = try? JSONParser.parse(bytes)
            if let parsed {
                // What is written back reads back as the same value (its
                // members in key order: canonical text sorts them).
                let text = parsed.canonicalText
                let again = try? JSONParser.parse(Array(text.utf8))
                precondition(again?.canonicalText == text, "canonical text does not read back as the same value")
            }
            JSONOracle.compare(bytes, ours: parsed)
            // The skipping reader (the state file's) lists an object's keys
            // as the building one does, and places each value where the
            // building one reads it; it reads nothing that is no object.
            let members = try? JSONParser.members(of: bytes)
            if case let .object(built)? = parsed {
                precondition(members?.map(\.key) == built.map(\.key), "members(of:) lists other keys than parse")
                for (member, value) in Swift.zip(members ?? [], built) {
                    precondition((try? JSONParser.parse(bytes, in: member.value)) == value.value, "members(of:) places a value elsewhere")
                }
            } else if parsed != nil {
                precondition(members == nil, "members(of:) reads what is no object")
            }
            // Each value it delimits in broken text is parsed in place, or refused, never a trap.
            for member in members ?? [] { _ = try? JSONParser.parse(bytes, in: member.value) }
        case .ssvc, .turkcell, .itunes:
            let format = ResponseFormat(rawValue: rawValue)!
            for scheme in [VersionScheme.dotted, .nsnumeric] {
                _ = try? format.evaluate(bytes, context: Self.context("1.2.3", scheme: scheme))
            }
            _ = try? format.evaluate(bytes, context: Self.context(""))
        case .github:
            let (pattern, document) = Self.split(bytes)
            for settings in [GitHubReleases.Settings(), GitHubReleases.Settings(includePrereleases: true, tagPattern: pattern.isEmpty ? nil : pattern)] {
                _ = try? ResponseFormat.github.evaluate(document, context: Self.context("1.2.3", scheme: .semver, settings: FormatSettings(github: settings)))
            }
        case .pointers:
            let (pointer, document) = Self.split(bytes)
            guard let parsed = try? JSONPointer(parsing: pointer) else { return }
            let settings = PointerDocument.Settings(version: parsed, date: parsed, minimumVersion: parsed, url: parsed)
            _ = try? ResponseFormat.json.evaluate(document, context: Self.context("1.0", settings: FormatSettings(pointers: settings)))
            _ = try? ResponseFormat.json.evaluate(
                document, context: Self.context("1.0", settings: FormatSettings(pointers: PointerDocument.Settings(version: parsed)))
            )
        case .rules:
            let (rule, value) = Self.split(bytes)
            let filter = FilterRule(rule)
            _ = filter.matches(String(decoding: value, as: UTF8.self))
            _ = filter.matches(nil)
        case .minisign:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? Minisign.PublicKey(parsing: text)
            guard let key = try? Minisign.PublicKey(parsing: "RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw") else { return }
            let requirement = SignatureRequirement(publicKeys: [key], url: "https://example.com/d.minisig", maxAgeDays: 30)
            _ = try? requirement.accept(Array("{}".utf8), signature: bytes, etag: nil, now: Self.now, newestAccepted: nil)
        case .varlink:
            var buffer = bytes[...]
            while let end = (try? VarlinkFraming.end(in: buffer)) ?? nil {
                _ = ControlCall(parsing: Array(buffer[buffer.startIndex..<end]))
                buffer = buffer[(end + 1)...]
            }
            _ = ControlCall(parsing: bytes)
        case .state:
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            // Read as the daemon reads it (bounded, apps a and b configured,
            // of the others only holds), and whole, every record read.
            let bounds = DaemonState.ReadBounds(responseBytes: 4_096, configured: ["a", "b"])
            _ = DaemonState.reading(bytes, decoder: decoder, bounds: bounds)
            // Read as a holds log too: the log read again over a state that
            // holds it already (a crash before its removal) changes nothing.
            var once = DaemonState()
            _ = once.replay(holdLog: bytes, decoder: decoder, bounds: bounds)
            var twice = once
            _ = twice.replay(holdLog: bytes, decoder: decoder, bounds: bounds)
            precondition(twice == once, "a holds log read twice is not the log read once")
            if case let .state(state, _, _, _) = DaemonState.reading(bytes, decoder: decoder) {
                for app in state.apps.values {
                    _ = app.isStale(now: Self.now, schedule: .daily)
                    _ = app.offering(at: Self.now)
                    // A state file's hold and held version settle like any other.
                    let limits = KeepBackRules(maxVersion: "2.0", ignoreVersions: ["1.5"], hold: app.hold, scheme: .dotted)
                    _ = app.resettled(PhasedRollout.Settings(app: "a", machine: "m"), limits: limits, now: Self.now)
                    _ = SchedulePlanner(schedule: .monthly, phase: 0.5).plan(now: Self.now, history: app.history, atStart: true, jitter: 0.5)
                }
            }
        case .times:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = RetryAfter.parse(text, now: Self.now)
            _ = RetryAfter.rateLimitReset(text, now: Self.now)
            _ = RFC3339.parse(text)
            _ = CivilTime.parseDayOrMinute(text)
        case .proxy:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? ProxyServer(parsing: text)
            _ = try? ProxyPolicy.Setting(parsing: text)
            let (list, host) = Self.split(bytes)
            _ = NoProxyList(parsing: list).bypasses(String(decoding: host, as: UTF8.self))
            _ = try? ProxyEnvironment(["https_proxy": text, "no_proxy": list])
        case .dpkg:
            let status = DpkgStatus(parsing: bytes)
            for name in status.entries.keys.prefix(8) { _ = try? status.installedVersion(of: name) }
        case .versions:
            let (left, right) = Self.split(bytes)
            let other = String(decoding: right, as: UTF8.self)
            for scheme in VersionScheme.allCases {
                guard let order = try? scheme.compare(left, other) else { continue }
                // An order is an order: reversed, it reverses.
                let reversed = try? scheme.compare(other, left)
                precondition(reversed == order.reversed, "\(scheme) compares '\(left)' and '\(other)' as \(order) but not the other way")
            }
            DebianOracle.compare(left, other)
        case .pep440:
            let (left, right) = Self.split(bytes)
            let other = String(decoding: right, as: UTF8.self)
            let scheme = VersionScheme.pep440
            for text in [left, other] {
                // A version is the same as its canonical form, which is its own canonical form.
                guard let canonical = try? scheme.normalized(text) else { continue }
                precondition((try? scheme.compare(text, canonical)) == .same, "pep440: '\(text)' is not the same as its form '\(canonical)'")
                precondition((try? scheme.normalized(canonical)) == canonical, "pep440: '\(canonical)' (from '\(text)') normalises to something else")
            }
            guard let order = try? scheme.compare(left, other) else { return }
            precondition((try? scheme.compare(other, left)) == order.reversed, "pep440: '\(left)' vs '\(other)' is \(order), but not reversed the other way")
            // The order is the canonical forms' order.
            precondition(
                (try? scheme.compare(scheme.normalized(left), scheme.normalized(other))) == order,
                "pep440: '\(left)' vs '\(other)' is \(order), but not between their canonical forms"
            )
        case .config:
            ConfigurationFuzzing.run(bytes)
        case .toml:
            ConfigurationFuzzing.roundTrip(bytes)
        case .zip:
            ZipFuzzing.run(bytes)
        case .osv:
            OSVFuzzing.run(bytes)
        case .cvss:
            guard let vector = try? CVSSVector(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
            // A score has one decimal, 0.0 to 10.0, and its rating; the
            // base metrics alone score the same.
            let tenths = vector.baseScore * 10
            precondition(tenths >= 0 && tenths <= 100 && tenths == tenths.rounded(), "score \(vector.baseScore)")
            precondition(vector.rating == CVSSVector.Rating(score: vector.baseScore))
            let base = try? CVSSVector(parsing: "CVSS:\(vector.version.rawValue)/\(vector.baseVector)")
            precondition(base?.baseScore == vector.baseScore, "the base metrics alone score otherwise")
        }
    }
}

