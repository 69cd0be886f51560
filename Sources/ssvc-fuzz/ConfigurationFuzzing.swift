@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore
import SSVCDaemon
import SSVCPosix

/// The `config` target: an `ssvcd.toml` and its apps directory, loaded in
/// this process as a start loads them. The input is the main file, then
/// each app file after a line `%%`; the seeds set `apps-dir = "apps.d"`,
/// the folder the app files are written to. Each part that parses as TOML
/// is also written back (`TOMLWriter`) and must parse to the same tree.
enum ConfigurationFuzzing {
    static let separator = Array("\n%%\n".utf8)
    static let maximumAppFiles = 8

    /// A folder of this process's own under `TMPDIR`, made once.
    static let folder: String = {
        let base = ProcessEnvironment.variables()["TMPDIR"] ?? "/tmp"
        let folder = "\(base)/ssvc-fuzz-config.\(getpid())"
        do {
            try FileSystem.makeDirectories(folder + "/apps.d", mode: 0o700)
        } catch {
            StandardError.writeLine("ssvc-fuzz: cannot make \(folder): \(error)")
            exit(1)
        }
        return folder
    }()

    static func run(_ bytes: [UInt8]) {
        var parts = bytes.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
        let main = parts.removeFirst()
        let mainFile = folder + "/ssvcd.toml"
        write(main, to: mainFile)
        let appsFolder = folder + "/apps.d"
        for name in (try? FileSystem.names(in: appsFolder)) ?? [] { unlink(appsFolder + "/" + name) }
        for (index, part) in parts.prefix(maximumAppFiles).enumerated() {
            let file = "\(appsFolder)/app\(index).toml"
            write(part, to: file)
        }
        for part in [main] + parts.prefix(maximumAppFiles) { roundTrip(part) }
        let overrides = ConfigurationLoader.Overrides(mainFile: mainFile, stateDirectory: folder + "/state", socketPath: folder + "/socket")
        // An error is an answer; a crash, trap or hang is not.
        if let configuration = try? ConfigurationLoader.load(overrides, environment: [:]) { check(configuration) }
    }

    /// When the windows of a fuzzed configuration are asked for an offer.
    static let windowsFrom = Date(timeIntervalSince1970: 1_800_000_000)

    /// What a configuration that loads promises the daemon: numbers in
    /// their ranges, one app per name, names a journal field can carry.
    static func check(_ configuration: Configuration) {
        let daemon = configuration.daemon
        precondition(DaemonKeys.idleTimeoutSeconds.range.contains(daemon.idleTimeoutSeconds), "idle-timeout out of range")
        precondition(DaemonKeys.timeoutSeconds.range.contains(daemon.timeoutSeconds), "timeout out of range")
        precondition(DaemonKeys.maxResponseBytes.range.contains(daemon.maxResponseBytes), "max-response-bytes out of range")
        if let position = daemon.rolloutPosition { precondition(DaemonKeys.rolloutPosition.range.contains(position), "rollout-position out of range") }
        var names: Set<String> = []
        for app in configuration.apps {
            precondition(names.insert(app.name).inserted, "two apps named \(app.name)")
            precondition(!app.name.isEmpty && app.name.unicodeScalars.allSatisfy { $0.isASCII && !DisplayText.isControl($0) }, "app name \(app.name)")
            precondition(!(app.url ?? "").unicodeScalars.contains { DisplayText.isControl($0) }, "a control character in the URL of \(app.name)")
            precondition(app.url != nil || app.advisories != nil, "\(app.name) has neither a url nor advisories")
            if let advisories = app.advisories {
                precondition(AppKeyRules.advisoriesURLProblem(advisories.source) == nil, "advisories-url of \(app.name)")
                precondition(AdvisoryKeys.maxAgeDays.range.contains(advisories.maxAgeDays), "advisories-max-age-days out of range")
                precondition(AdvisoryKeys.maxBytes.range.contains(advisories.maxBytes), "advisories-max-bytes out of range")
                for ignore in advisories.ignores { precondition(AppKeyRules.advisoryNameProblem(ignore.id) == nil, "an ignore id \(ignore.id)") }
            }
            if let seconds = app.phasedRolloutSeconds { precondition(AppKeys.phasedRolloutSeconds.range.contains(seconds), "phased-rollout-seconds out of range") }
            if let windows = app.offerWindows {
                // An offer found is inside the window it names (SPEC §16).
                for position in [0, 0.5, 1.0] {
                    guard let offer = windows.offer(from: Self.windowsFrom, position: position) else { continue }
                    precondition(offer.at >= Self.windowsFrom, "an offer before it was due")
                    if let start = offer.windowStart, let end = offer.windowEnd {
                        precondition(start <= offer.at && offer.at < end, "an offer outside its window: \(offer)")
                    }
                }
            }
            for limit in [app.maxVersion].compactMap({ $0 }) + app.ignoreVersions {
                precondition(AppKeyRules.versionLimitProblem(limit, scheme: app.versionScheme) == nil, "a limit that is no version: \(limit)")
            }
        }
    }

    static func write(_ bytes: [UInt8], to file: String) {
        do {
            try FileSystem.replace(file, with: bytes, mode: 0o600, durable: false)
        } catch {
            StandardError.writeLine("ssvc-fuzz: cannot write \(file): \(error)")
            exit(1)
        }
    }

    /// A document that parses prints back as TOML that parses to the same tree.
    static func roundTrip(_ bytes: [UInt8]) {
        guard let table = try? TOMLParser().parse(bytes) else { return }
        let written = TOMLWriter.write(table)
        guard let again = try? TOMLParser().parse(written) else {
            preconditionFailure("the writer's text does not parse: \(written)")
        }
        precondition(again.taggedJSON == table.taggedJSON, "changed on the way round: \(table.taggedJSON) became \(again.taggedJSON)")
    }
}
