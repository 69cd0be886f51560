import SSVCDaemon
import SSVCPosix
import SSVCSystemd

/// The command lines a service manager starts ssvcd with, read without
/// ArgumentParser: its parse (reflection over the options, the completion
/// script check) was 4–6 ms of the 23 ms from exec to READY=1 (issue 55).
/// Only an unambiguous start is read here: `--config`, `--state-dir`,
/// `--socket` and `--log-target`, each at most once, as `--name value` or
/// `--name=value`, with a value that is not empty and does not start with
/// `-`. Anything else (help, version, `--check-config`, a typo, a repeat)
/// is nil, and ArgumentParser reads the whole line as before, so every
/// message and exit status stays its own.
struct StartArguments: Equatable {
    var config: String?
    var stateDirectory: String?
    var socket: String?
    var logTarget: LogTarget = .auto

    /// The arguments after the program name, or nil for ArgumentParser.
    static func parse(_ arguments: some Collection<String>) -> StartArguments? {
        var result = StartArguments()
        var seen: [String] = []
        var pending: String?
        for argument in arguments {
            if let name = pending {
                guard result.set(name, argument) else { return nil }
                pending = nil
                continue
            }
            guard argument.hasPrefix("--") else { return nil }
            let option = argument.dropFirst(2)
            let name: String
            var value: String?
            if let equals = option.firstIndex(of: "=") {
                name = String(option[..<equals])
                value = String(option[option.index(after: equals)...])
            } else {
                name = String(option)
            }
            guard ["config", "state-dir", "socket", "log-target"].contains(name), !seen.contains(name) else { return nil }
            seen.append(name)
            if let value {
                guard result.set(name, value) else { return nil }
            } else {
                pending = name
            }
        }
        return pending == nil ? result : nil
    }

    /// Sets option `name` to `value`; false when the value is one
    /// ArgumentParser should judge.
    private mutating func set(_ name: String, _ value: String) -> Bool {
        guard !value.isEmpty, !value.hasPrefix("-") else { return false }
        switch name {
        case "config": config = value
        case "state-dir": stateDirectory = value
        case "socket": socket = value
        default:
            guard let target = LogTarget(rawValue: value) else { return false }
            logTarget = target
        }
        return true
    }

    var overrides: ConfigurationLoader.Overrides {
        ConfigurationLoader.Overrides(mainFile: config, stateDirectory: stateDirectory, socketPath: socket)
    }

    /// Starts the daemon: for this fast path and for ArgumentParser's
    /// `SSVCD.run` alike.
    func start() -> Never {
        ProcessLimits.resetInheritedSignals()
        DaemonMain.start(overrides: overrides, logTarget: logTarget)
    }
}
