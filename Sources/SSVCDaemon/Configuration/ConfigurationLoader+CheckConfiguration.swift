import SSVCCore
import SSVCPosix

extension ConfigurationLoader {
    /// `ssvcd --check-config`: loads the configuration as a start would
    /// (the main file, the apps directory, the same checks, the same
    /// child for the TOML), prints one line per app and every warning, and
    /// touches neither state nor socket. 0 when it would start, else 78
    /// with the error on standard error.
    package static func checkConfiguration(_ overrides: Overrides, environment: [String: String]) -> Int32 {
        let configuration: Configuration
        do {
            configuration = try load(overrides, environment: environment)
        } catch {
            StandardError.writeEscapedLine("ssvcd: \(error.description)")
            return DaemonMain.configurationErrorExit
        }
        let daemon = configuration.daemon
        // What the start would refuse, or the daemon would meet later: the
        // same checks, said now.
        if let problem = FileSystem.folderProblem(daemon.stateDirectory) {
            StandardError.writeEscapedLine("ssvcd: daemon.state-dir: cannot write \(daemon.stateDirectory)/state.json: \(problem)")
            return DaemonMain.configurationErrorExit
        }
        var warnings = configuration.warnings
        if let metrics = daemon.metricsFile, let problem = FileSystem.folderProblem(FileSystem.folder(of: metrics)) {
            warnings.append("daemon.metrics-file: \(metrics) cannot be written: \(problem)")
        }
        if let hooks = daemon.hooksDirectory {
            for (name, problem) in HookRunner.listing(hooks).refused {
                warnings.append(name == "*" ? "hooks in \(hooks) refused: \(problem)" : "hook \(hooks)/\(name) refused, it will not run: \(problem)")
            }
        }
        for app in configuration.apps {
            guard let ecosystem = app.inputs[Advisories.self]?.ecosystem, OSVEcosystems.spelling(of: ecosystem) == .unknown else { continue }
            warnings.append(
                "\(app.name): advisories-ecosystem: '\(ecosystem)' is not an ecosystem OSV lists (PyPI, npm, Go, crates.io, Maven, Debian:12, ...): no record may match it"
            )
        }
        for warning in warnings { StandardError.writeEscapedLine("ssvcd: warning: \(warning)") }
        let apps = configuration.apps
        // Paths, versions and commands are the files' text: escaped, like the errors.
        let show = { (line: String) in print(DisplayText.escaped(line, limit: .max)) }
        show("\(overrides.mainFile ?? defaultMainFile), \(configuration.daemon.appsDirectory): \(apps.count) app\(apps.count == 1 ? "" : "s"), configuration OK")
        for app in apps {
            let url = app.url.map(URLText.masked) ?? "none (" + app.inputs.names.joined(separator: ", ") + " only)"
            show("\(app.name): format \(app.format.rawValue), schedule \(app.schedule.rawValue), \(app.version.shown), url \(url)")
        }
        return 0
    }
}
