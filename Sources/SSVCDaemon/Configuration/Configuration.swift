import Logging
import SSVCCore

/// The whole configuration: daemon settings and the apps to check.
public struct Configuration: Sendable, Equatable {
    public var daemon: DaemonSettings
    public var apps: [AppConfiguration]
    /// What was passed over without stopping the load, in words: files in
    /// the apps directory skipped for their names.
    public var warnings: [String] = []
}

/// `[daemon]`.
public struct DaemonSettings: Sendable, Equatable {
    public var stateDirectory: String
    public var socketPath: String
    public var appsDirectory: String
    public var language: String
    public var country: String
    /// A group whose members, besides root, may call `Check` and `Reload`.
    public var controlGroup: String?
    /// Its id, looked up when the configuration is read.
    public var controlGroupID: UInt32?
    /// Control connections silent this long are closed (a pending Watch excepted).
    public var idleTimeoutSeconds: Int
    public var timeoutSeconds: Double
    public var maxResponseBytes: Int
    /// Extra trust roots (PEM) besides the system's.
    public var caFile: String?
    public var policy: SchedulePolicy
    /// The environment's proxy variables with `proxy` and `no-proxy` over
    /// them; each app may override it.
    public var proxy: ProxyPolicy
    /// The client certificate apps present unless they name their own.
    public var clientIdentity: ClientIdentity?
    /// The Prometheus text file written at each change; nil: none.
    public var metricsFile: String?
    /// Executables run when an app's status changes; nil: none.
    public var hooksDirectory: String?
    /// This machine's place in every phased rollout, pinned; nil: drawn
    /// for each version.
    public var rolloutPosition: Double?
}

/// Where an app's running version comes from; read again before every check.
public enum VersionSource: Sendable, Equatable {
    case fixed(String)
    /// The first line of a file.
    case file(String)
    /// The first line of a command's standard output (argv, no shell; 5 s limit).
    case command([String])
    /// A Debian package's installed version, from dpkg's database at `database`.
    case package(String, database: String)
}

/// One `[[app]]` table or apps-directory file.
public struct AppConfiguration: Sendable, Equatable {
    public var name: String
    /// The version server; nil for an app that asks only its inputs (`AppInput`).
    public var url: String?
    public var format: ResponseFormat
    public var schedule: Schedule
    public var version: VersionSource
    public var versionNumber: UInt64?
    public var versionScheme: VersionScheme
    public var appID: String
    public var language: String?
    public var country: String?
    /// Extra `x-…` filter properties.
    public var properties: [String: String]
    /// Extra query parameters, in key order.
    public var query: [QueryParameter]
    public var minReleaseAgeDays: UInt?
    /// `proxy = "none"` or a proxy URL: over the daemon's choice.
    public var proxy: ProxyPolicy.Setting?
    /// Sent as `Authorization: Bearer`; read afresh at each check.
    public var bearerToken: SecretSource?
    /// Plain, non-secret request headers, in name order.
    public var headers: [RequestHeader]
    /// Its own client certificate, over the daemon's.
    public var clientIdentity: ClientIdentity?
    /// Keys its documents must be signed with, and how fresh; nil: unsigned.
    public var signature: SignatureRequirement?
    /// `phased-rollout-seconds`: the rollout window; nil: the document's.
    public var phasedRolloutSeconds: Int?
    /// `max-version`: no offer above it, in the app's scheme.
    public var maxVersion: String?
    /// `ignore-versions`: versions never offered.
    public var ignoreVersions: [String]
    /// `github`'s tag rules and `json`'s pointers.
    public var formatSettings: FormatSettings
    /// The settings of each input the app uses (`AppInput`).
    public var inputs: InputSettings
    /// The file it was read from, for messages.
    public var source: String
}

extension AppConfiguration {
    /// What keeps versions back for the app: its keys and `hold`.
    func limits(hold: Hold?) -> KeepBackRules {
        KeepBackRules(
            maxVersion: maxVersion, ignoreVersions: ignoreVersions, hold: hold, scheme: versionScheme, packedNumbers: versionNumber == nil
        )
    }
}

/// A `Name = "value"` of an app's `headers`.
public struct RequestHeader: Sendable, Equatable {
    public var name: String
    public var value: String
}

/// A `name=value` pair added to a request's query.
public struct QueryParameter: Sendable, Equatable {
    public var name: String
    public var value: String
}

/// A configuration that cannot be used: one line naming file, key and problem.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let key: String?
    public let problem: String

    /// Where in the file, when known: "[[app]] 'billing', line 14".
    public var place: String?
    /// The line and column of a TOML syntax error, shown as `file:3:14:`.
    public var line: Int?
    public var column: Int?

    public init(file: String, key: String? = nil, problem: String, place: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.key = key
        self.problem = problem
        self.place = place
        self.line = line
        self.column = column
    }

    public var description: String {
        let position = line.map { ":\($0)" + (column.map { ":\($0)" } ?? "") } ?? ""
        return [file + position, key, problem].compactMap { $0 }.joined(separator: ": ") + (place.map { " (\($0))" } ?? "")
    }
}

extension VersionSource {
    /// The key that set it, with its value, file or program, for messages:
    /// `version 1.4.2`, `version-file /opt/x/VERSION`, `version-command dpkg-query`.
    var shown: String {
        switch self {
        case let .fixed(key): "version \(key)"
        case let .file(path): "version-file \(path)"
        case let .command(argv): "version-command \(argv.first ?? "")"
        case let .package(name, _): "version-package \(name)"
        }
    }
}
