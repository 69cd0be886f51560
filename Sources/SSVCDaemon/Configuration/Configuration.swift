import Logging
import SSVCCore

/// The whole configuration: daemon settings and the apps to check.
package struct Configuration: Sendable, Equatable {
    package var daemon: DaemonSettings
    package var apps: [AppConfiguration]
    /// What was passed over without stopping the load, in words: files in
    /// the apps directory skipped for their names.
    package var warnings: [String] = []
}

/// `[daemon]`.
package struct DaemonSettings: Sendable, Equatable {
    package var stateDirectory: String
    package var socketPath: String
    package var appsDirectory: String
    package var language: String
    package var country: String
    /// A group whose members, besides root, may call `Check` and `Reload`.
    package var controlGroup: String?
    /// Its id, looked up when the configuration is read.
    package var controlGroupID: UInt32?
    /// Control connections silent this long are closed (a pending Watch excepted).
    package var idleTimeoutSeconds: Int
    package var timeoutSeconds: Double
    package var maxResponseBytes: Int
    /// Extra trust roots (PEM) besides the system's.
    package var caFile: String?
    package var policy: SchedulePolicy
    /// The environment's proxy variables with `proxy` and `no-proxy` over
    /// them; each app may override it.
    package var proxy: ProxyPolicy
    /// The client certificate apps present unless they name their own.
    package var clientIdentity: ClientIdentity?
    /// The Prometheus text file written at each change; nil: none.
    package var metricsFile: String?
    /// Executables run when an app's status changes; nil: none.
    package var hooksDirectory: String?
    /// This machine's place in every phased rollout, pinned; nil: drawn
    /// for each version.
    package var rolloutPosition: Double?
    /// `offer-windows` for apps that list none; nil: none.
    package var offerWindows: [OfferWindows.Window]? = nil
    /// `windows-time-zone` for apps that name none.
    package var windowsZone: ZoneRules = .utc
}

/// Where an app's running version comes from; read again before every check.
package enum VersionSource: Sendable, Equatable {
    case fixed(String)
    /// The first line of a file.
    case file(String)
    /// The first line of a command's standard output (argv, no shell; 5 s limit).
    case command([String])
    /// A Debian package's installed version, from dpkg's database at `database`.
    case package(String, database: String)
}

/// One `[[app]]` table or apps-directory file.
package struct AppConfiguration: Sendable, Equatable {
    package var name: String
    /// The version server; nil for an app that asks only its inputs (`AppInput`).
    package var url: String?
    package var format: ResponseFormat
    package var schedule: Schedule
    package var version: VersionSource
    package var versionNumber: UInt64?
    package var versionScheme: VersionScheme
    package var appID: String
    package var language: String?
    package var country: String?
    /// Extra `x-…` filter properties.
    package var properties: [String: String]
    /// Extra query parameters, in key order.
    package var query: [QueryParameter]
    package var minReleaseAgeDays: UInt?
    /// `proxy = "none"` or a proxy URL: over the daemon's choice.
    package var proxy: ProxyPolicy.Setting?
    /// Sent as `Authorization: Bearer`; read afresh at each check.
    package var bearerToken: SecretSource?
    /// Plain, non-secret request headers, in name order.
    package var headers: [RequestHeader]
    /// Its own client certificate, over the daemon's.
    package var clientIdentity: ClientIdentity?
    /// Keys its documents must be signed with, and how fresh; nil: unsigned.
    package var signature: SignatureRequirement?
    /// `phased-rollout-seconds`: the rollout window; nil: the document's.
    package var phasedRolloutSeconds: Int?
    /// `offer-windows` in its zone, its own or the daemon's; nil: none.
    package var offerWindows: OfferWindows? = nil
    /// `max-version`: no offer above it, in the app's scheme.
    package var maxVersion: String?
    /// `ignore-versions`: versions never offered.
    package var ignoreVersions: [String]
    /// `github`'s tag rules and `json`'s pointers.
    package var formatSettings: FormatSettings
    /// The settings of each input the app uses (`AppInput`).
    package var inputs: InputSettings
    /// The file it was read from, for messages.
    package var source: String
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
package struct RequestHeader: Sendable, Equatable {
    package var name: String
    package var value: String
}

/// A `name=value` pair added to a request's query.
package struct QueryParameter: Sendable, Equatable {
    package var name: String
    package var value: String
}

/// A configuration that cannot be used: one line naming file, key and problem.
package struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    package let file: String
    package let key: String?
    package let problem: String

    /// Where in the file, when known: "[[app]] 'billing', line 14".
    package var place: String?
    /// The line and column of a TOML syntax error, shown as `file:3:14:`.
    package var line: Int?
    package var column: Int?

    package init(file: String, key: String? = nil, problem: String, place: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.key = key
        self.problem = problem
        self.place = place
        self.line = line
        self.column = column
    }

    package var description: String {
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
