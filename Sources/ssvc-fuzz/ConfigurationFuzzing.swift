@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore
import SSVCDaemon

/// The `config` target: an `ssvcd.toml` and its apps directory, loaded in
/// this process as a start loads them. The input is the main file, then
/// each app file after a line `%%`; the seeds set `apps-dir = "apps.d"`,
/// the folder the app files are in. The files are held in memory
/// (`ConfigurationMemory`): the loader's work without a file written or
/// read per input. The `toml` target prints each parsed file back.
enum ConfigurationFuzzing {
    static let maximumAppFiles = 8
    static let folder = "/ssvc-fuzz"

    static func run(_ bytes: [UInt8]) {
        var parts = split(bytes)
        let main = parts.removeFirst()
        let mainFile = folder + "/ssvcd.toml"
        var files = [mainFile: main]
        for (index, part) in parts.prefix(maximumAppFiles).enumerated() { files["\(folder)/apps.d/app\(index).toml"] = part }
        let memory = ConfigurationMemory(files: files, folders: [folder, folder + "/apps.d"])
        let overrides = ConfigurationLoader.Overrides(mainFile: mainFile, stateDirectory: folder + "/state", socketPath: folder + "/socket")
        // An error is an answer; a crash, trap or hang is not.
        if let configuration = try? ConfigurationLoader.load(overrides, environment: [:], files: memory) { check(configuration) }
    }

    /// `bytes` cut at each `\n%%\n`: each line feed found with `memchr`.
    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            var offset = 0
            while offset < buffer.count, let found = memchr(base + offset, 0x0A, buffer.count - offset) {
                let at = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                offset = at + 1
                guard at + 3 < buffer.count, buffer[at + 1] == 0x25, buffer[at + 2] == 0x25, buffer[at + 3] == 0x0A else { continue }
                parts.append(Array(buffer[start..<at]))
                offset = at + 4
                start = offset
            }
            parts.append(Array(buffer[start...]))
        }
        return parts.isEmpty ? [[]] : parts
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

    /// The `toml` target: a document that parses prints back as TOML that
    /// parses to the same tree.
    static func roundTrip(_ bytes: [UInt8]) {
        guard let table = try? TOMLParser().parse(bytes) else { return }
        let written = TOMLWriter.write(table)
        guard let again = try? TOMLParser().parse(written) else {
            preconditionFailure("the writer's text does not parse: \(written)")
        }
        precondition(again.taggedJSON == table.taggedJSON, "changed on the way round: \(table.taggedJSON) became \(again.taggedJSON)")
    }
}
