import ArgumentParser
import FoundationEssentials
import SSVCCore
import SSVCPosix

/// `ssvcctl evaluate --lifecycle`: an endoflife.date answer read offline
/// for one version, by the daemon's own reader and rule (SPEC §15).
extension Evaluate {
    func validateLifecycle() throws {
        guard response == nil, advisories == nil else { throw ValidationError("give only one of --response, --advisories and --lifecycle") }
        guard let versionKey, !versionKey.isEmpty else { throw ValidationError("--lifecycle needs --version: the running version") }
        if let problem = DisplayText.versionProblem(versionKey) { throw ValidationError("--version: not a version string: \(problem)") }
        do {
            try lifecycleScheme.validate(versionKey)
        } catch {
            throw ValidationError("--version: \(error)")
        }
        if let release, let problem = EndOfLifeAnswer.nameProblem(release) { throw ValidationError("--release: \(problem)") }
        try check(LifecycleKeys.warnDays, lifecycleWarnDays.map(ConfigValue.int))
        if let now, RFC3339.parse(now) == nil {
            throw ValidationError("--now '\(now)': expected an RFC 3339 time such as 2026-01-02T03:04:05Z")
        }
    }

    private var lifecycleScheme: VersionScheme { versionScheme ?? .dotted }

    func runLifecycle(_ source: String) throws {
        var path = source
        if source.lowercased().hasPrefix("file://") {
            guard let local = URL(string: source)?.path, !local.isEmpty else {
                StandardError.writeLine("ssvcctl: --lifecycle: '\(DisplayText.escaped(source))' is not a file URL")
                throw ExitStatus.failure
            }
            path = local
        } else if source.lowercased().hasPrefix("http://") || source.lowercased().hasPrefix("https://") {
            StandardError.writeLine("ssvcctl: --lifecycle: ssvcctl evaluates offline: fetch \(URLText.masked(source)) first (curl -o FILE) and pass the file")
            throw ExitStatus.failure
        }
        let answer: EndOfLifeAnswer
        do {
            answer = try EndOfLifeAnswer.read(try BoundedReader.read(path: path, limit: EndOfLifeAnswer.maximumBytes, specialFiles: true))
        } catch let error as BoundedReader.Failure {
            StandardError.writeLine("ssvcctl: --lifecycle \(DisplayText.escaped(path)): \(error)")
            throw ExitStatus.failure
        } catch {
            StandardError.writeLine("ssvcctl: --lifecycle \(DisplayText.escaped(path)): \(error)")
            throw ExitStatus.failure
        }
        let at = now.flatMap(RFC3339.parse) ?? Date()
        let version = versionKey ?? ""
        let running = (try? lifecycleScheme.normalized(version)) ?? version
        let settings = LifecycleSettings(
            source: path, product: "", release: release, warnDays: lifecycleWarnDays ?? LifecycleSettings.defaultWarnDays
        )
        let data = LifecycleData().read(answer, version: running, named: release, etag: nil, lastModified: nil, at: at)
        let verdict = LifecycleVerdict(data: data, settings: settings, running: running, scheme: lifecycleScheme, now: at)
        if json {
            print(ConsoleJSON.text(LifecycleAnswer(verdict, notes: data.notes)))
        } else {
            print(Self.lifecycleText(verdict, version: running, notes: data.notes))
        }
        if verdict.state == .endOfLife { throw ExitStatus.endOfLife }
    }

    /// `--json`'s answer: the fields `App` has, by the same names.
    struct LifecycleAnswer: Encodable {
        var lifecycle: LifecycleState
        var lifecycleRelease: String?
        var supportEnds: String?
        var endOfLife: String?
        var extendedUntil: String?
        var latestInRelease: String?
        var newerInRelease: Bool
        var note: String?
        var notes: [String]

        init(_ verdict: LifecycleVerdict, notes: [String]) {
            lifecycle = verdict.state
            lifecycleRelease = verdict.release
            supportEnds = verdict.supportEnds.map(EndOfLifeAnswer.format)
            endOfLife = verdict.endOfLife.map(EndOfLifeAnswer.format)
            extendedUntil = verdict.extendedUntil.map(EndOfLifeAnswer.format)
            latestInRelease = verdict.latestInRelease
            newerInRelease = verdict.newerInRelease
            note = verdict.reason
            self.notes = notes
        }
    }

    /// "end-of-life: 18.20.4 is in release nodejs18.x, whose end of life was 2026-03-09".
    static func lifecycleText(_ verdict: LifecycleVerdict, version: String, notes: [String]) -> String {
        let shown = { (text: String) in DisplayText.escaped(text) }
        let day = { (date: Date?) in date.map(EndOfLifeAnswer.format) }
        let release = verdict.release.map { "release \(shown($0))" } ?? "no release"
        var lines: [String] = []
        switch verdict.state {
        case .supported:
            lines.append("supported: \(shown(version)) is in \(release)" + (day(verdict.endOfLife).map { ", supported until \($0)" } ?? ""))
        case .securityOnly:
            lines.append("security-only: \(shown(version)) is in \(release), whose active support ended \(day(verdict.supportEnds) ?? "?")"
                + (day(verdict.endOfLife).map { "; end of life after \($0)" } ?? ""))
        case .ending:
            lines.append("ending: \(shown(version)) is in \(release), whose end of life is \(day(verdict.endOfLife) ?? "?")")
        case .endOfLife:
            lines.append("end-of-life: \(shown(version)) is in \(release), past its end of life" + (day(verdict.endOfLife).map { " (\($0))" } ?? ""))
            if let extended = day(verdict.extendedUntil) { lines.append("  extended support until \(extended)") }
        case .unknown:
            lines.append("unknown: \(shown(verdict.reason ?? "no release matches"))")
        }
        if let latest = verdict.latestInRelease {
            lines.append("  newest in the release: \(shown(latest))" + (verdict.newerInRelease ? " (newer than \(shown(version)))" : ""))
        }
        lines += notes.map { "note: \(shown($0))" }
        return lines.joined(separator: "\n")
    }
}
