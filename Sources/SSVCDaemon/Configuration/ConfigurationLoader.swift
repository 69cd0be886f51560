import SSVCCore
import SSVCPosix

/// Reads `ssvcd.toml` and the apps directory into a `Configuration`,
/// refusing anything it does not understand: an unknown key is more likely a
/// typo than a wish to be ignored.
package enum ConfigurationLoader {
    package static let defaultMainFile = "/etc/ssvc/ssvcd.toml"

    /// What the command line says.
    package struct Overrides: Sendable {
        package var mainFile: String?
        package var stateDirectory: String?
        package var socketPath: String?

        package init(mainFile: String? = nil, stateDirectory: String? = nil, socketPath: String? = nil) {
            self.mainFile = mainFile
            self.stateDirectory = stateDirectory
            self.socketPath = socketPath
        }
    }

    /// Loads everything. The main file may be absent when not named on the
    /// command line (`unnamedMainFile` is the one read then); relative paths
    /// in a file are relative to its folder. `files` are the disk's but for
    /// the fuzzer; what a key names (a token file, a key, a certificate) is
    /// read from the disk.
    package static func load(
        _ overrides: Overrides, environment: [String: String], unnamedMainFile: String = defaultMainFile,
        files: some ConfigurationFiles = ConfigurationDisk()
    ) throws(ConfigurationError) -> Configuration {
        let mainFile = overrides.mainFile ?? unnamedMainFile
        var root = ConfigTable()
        var mainText = ""
        if overrides.mainFile != nil || files.exists(mainFile) {
            let document = try ConfigurationDocument.read(mainFile, from: files)
            root = try document.table()
            mainText = document.text
        }
        do {
            try TableReader(root, file: mainFile, key: nil).rejectUnknown(["daemon", "app"])
        } catch {
            var located = error
            if located.line == nil { located.place = KeyLocator.line(of: error.key, appTable: nil, in: mainText).map { "line \($0)" } }
            throw located
        }
        // The command line's paths apply before anything is derived from
        // them (the metrics file's default folder is the socket's).
        var daemon: DaemonSettings
        do {
            daemon = try daemonSettings(root, file: mainFile, environment: environment, socketOverride: overrides.socketPath)
        } catch {
            // Where in the main file: the [daemon] table's line for the key.
            var located = error
            if located.line == nil { located.place = KeyLocator.daemonLine(of: error.key, in: mainText).map { "line \($0)" } }
            throw located
        }
        if let state = overrides.stateDirectory { daemon.stateDirectory = state }

        var apps: [AppConfiguration] = []
        if let list = root["app"] {
            guard let array = list.array else {
                throw ConfigurationError(file: mainFile, key: "app", problem: "expected [[app]] tables")
            }
            apps.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                guard let table = element.table else {
                    throw ConfigurationError(file: mainFile, key: "app[\(index)]", problem: "expected a table")
                }
                do {
                    apps.append(try app(table, file: mainFile, defaultName: nil, daemon: daemon, environment: environment))
                } catch {
                    // Which app, and where: the third [[app]] of a long file is hard to find.
                    var located = error
                    let name = table[AppKeys.name.name]?.string.map { "'\($0)'" } ?? "number \(index + 1)"
                    let line = KeyLocator.line(of: error.key, appTable: index, in: mainText)
                    located.place = "[[app]] \(name)" + (line.map { ", line \($0)" } ?? "")
                    throw located
                }
            }
        }
        let appsDirectory = daemon.appsDirectory
        if root["daemon"]?.table?[DaemonKeys.appsDirectory.name] != nil, !files.exists(appsDirectory) {
            throw ConfigurationError(file: mainFile, key: "daemon.apps-dir", problem: "\(appsDirectory) does not exist")
        }
        let (appPaths, skipped) = try appFiles(appsDirectory, in: files)
        for file in appPaths {
            guard let document = try ConfigurationDocument.readIfPresent(file, from: files) else { continue }
            let table = try document.table()
            let stem = String(file.split(separator: "/").last!.dropLast(".toml".count))
            do {
                apps.append(try app(table, file: file, defaultName: stem, daemon: daemon, environment: environment))
            } catch {
                var located = error
                located.place = KeyLocator.line(of: error.key, appTable: nil, in: document.text).map { "line \($0)" }
                throw located
            }
        }
        var seen: [String: String] = [:]
        for app in apps {
            if let other = seen[app.name] {
                throw ConfigurationError(file: app.source, key: "name", problem: "app '\(app.name)' is also defined in \(other)")
            }
            seen[app.name] = app.source
        }
        try checkMetricsFile(daemon, mainFile: mainFile, appFiles: appPaths, in: files)
        return Configuration(
            daemon: daemon, apps: apps,
            warnings: skipped
        )
    }

    /// The metrics file is replaced at each write and removed at stop: it
    /// may not be the state file, the control socket or a configuration file.
    static func checkMetricsFile(
        _ daemon: DaemonSettings, mainFile: String, appFiles: [String], in files: some ConfigurationFiles
    ) throws(ConfigurationError) {
        guard let metrics = daemon.metricsFile else { return }
        let taken = [(daemon.stateDirectory + "/state.json", "the state file"), (daemon.socketPath, "the control socket"), (mainFile, "the configuration file")]
            + appFiles.map { ($0, "an app's configuration file") }
        for (path, what) in taken where files.sameFile(metrics, path) {
            throw ConfigurationError(
                file: mainFile, key: "daemon.metrics-file", problem: "\(metrics) is \(what), which metrics would overwrite and a stop would remove"
            )
        }
    }

    /// `*.toml` in `directory`, in name order, and a warning for each other
    /// file there that looks meant for it but is skipped for its name
    /// (`foo.conf`, `bar.TOML`, a name that is not UTF-8, shown escaped);
    /// hidden files (editors' swap files) and backups ending in `~` are
    /// skipped silently. A missing directory holds no apps.
    static func appFiles(_ directory: String, in files: some ConfigurationFiles) throws(ConfigurationError) -> (files: [String], skipped: [String]) {
        let names: [String]
        let undecodable: [String]
        do {
            (names, undecodable) = try files.listing(in: directory) ?? ([], [])
        } catch {
            throw ConfigurationError(file: directory, problem: "cannot read the apps directory: \(error)")
        }
        let path = { (name: String) in directory.hasSuffix("/") ? directory + name : directory + "/" + name }
        let visible = names.filter { !$0.hasPrefix(".") && !$0.hasSuffix("~") }.sorted()
        let read = visible.filter { $0.hasSuffix(".toml") && $0.count > ".toml".count }
        let skipped = visible.filter { !read.contains($0) && !files.isDirectory(path($0)) }
        let warnings = skipped.map { "\(path($0)): skipped: only files named *.toml are read from the apps directory" }
            + undecodable.sorted().map { "\(path($0)): skipped: the file's name is not UTF-8; rename it" }
        return (read.map(path), warnings)
    }

    /// `proxy`: "none" or a proxy URL.
    static func proxySetting(_ reader: TableReader, _ key: ConfigurationKey<String>) throws(ConfigurationError) -> ProxyPolicy.Setting? {
        guard let text = try reader.read(key) else { return nil }
        do {
            return try ProxyPolicy.Setting(parsing: text)
        } catch {
            throw reader.error(key, error.description)
        }
    }

    /// `client-certificate` with `client-key` or `client-key-credential`,
    /// read and matched now.
    static func clientIdentity(_ reader: TableReader, environment: [String: String]) throws(ConfigurationError) -> ClientIdentity? {
        let certificate = try reader.path(ClientIdentityKeys.certificate)
        let keyFile = try reader.path(ClientIdentityKeys.key)
        let keyCredential = try reader.read(ClientIdentityKeys.keyCredential)
        if keyFile != nil && keyCredential != nil {
            throw reader.error(ClientIdentityKeys.key, "set only one of client-key, client-key-credential")
        }
        let key = keyFile.map(SecretSource.file) ?? keyCredential.map(SecretSource.credential)
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (nil, _):
            throw reader.error(ClientIdentityKeys.certificate, "missing: a client key needs its certificate")
        case (_, nil):
            throw reader.error(ClientIdentityKeys.key, "missing: set client-key or client-key-credential for the client certificate")
        case let (certificate?, key?):
            do {
                return try ClientIdentity.load(certificateFile: certificate, key: key, environment: environment)
            } catch {
                throw reader.error(ClientIdentityKeys.certificate, error.description)
            }
        }
    }
}
