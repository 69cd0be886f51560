import FoundationEssentials
import Logging
import SSVCControl
import SSVCCore

/// An app's end of life as one report shows it: the verdict, derived
/// once, and what it adds to every output.
struct EndOfLifeVerdict: InputVerdict {
    let verdict: LifecycleVerdict
    let settings: LifecycleSettings
    let data: LifecycleData?
    let said: LifecycleData.Reported?
    let notes: [String]
    let failure: InputFailure?
    let offer: InputRequirement?
    private let running: String

    var input: String { EndOfLife.name }
    var requirement: InputRequirement? { nil }
    var changesAt: [Date] { verdict.changesAt }

    init(_ verdict: LifecycleVerdict, settings: LifecycleSettings, data: LifecycleData?, said: LifecycleData.Reported?, hasServer: Bool, running: String?) {
        self.verdict = verdict
        self.settings = settings
        self.data = data
        self.said = said
        self.running = running ?? "?"
        var notes = data?.notes ?? []
        if let data, data.consecutiveFailures > 0, let error = data.lastError {
            failure = InputFailure(error: error.hasPrefix("lifecycle") ? error : "lifecycle: \(error)", count: data.consecutiveFailures)
            let kept = data.checked.map { "the release read \(RFC3339.format($0)) is kept" } ?? "nothing was read yet"
            notes.append("end of life not read (\(data.consecutiveFailures) in a row): \(kept)")
        } else {
            failure = nil
        }
        // Unknown because never read while reads fail: the failure's note says it.
        if verdict.state == .unknown, let reason = verdict.reason, failure == nil || data?.checked != nil { notes.append(reason) }
        // A newer version in the same line: the one offer an app without a
        // version server has; beside a server's answer, a note.
        if verdict.newerInRelease, let latest = verdict.latestInRelease, let release = verdict.release {
            // A note is escaped where it is shown.
            let note = "\(DisplayText.cut(latest, bytes: 80)) is the newest of release \(DisplayText.cut(release, bytes: 80))"
            if hasServer {
                notes.append(note)
                offer = nil
            } else {
                offer = InputRequirement(version: latest, note: note)
            }
        } else {
            offer = nil
        }
        self.notes = notes
    }

    private static func day(_ date: Date?) -> String? {
        date.map(EndOfLifeAnswer.format)
    }

    func show(in status: inout AppStatus) {
        status.lifecycle = verdict.state
        status.lifecycleChecked = data?.checked.map(RFC3339.format)
        status.lifecycleRelease = verdict.release
        status.supportEnds = Self.day(verdict.supportEnds)
        status.endOfLife = Self.day(verdict.endOfLife)
        status.extendedUntil = Self.day(verdict.extendedUntil)
        status.latestInRelease = verdict.latestInRelease
    }

    var journalFields: [String: String] {
        var fields = ["SSVC_LIFECYCLE": verdict.state.rawValue]
        if let day = Self.day(verdict.endOfLife) { fields["SSVC_END_OF_LIFE"] = day }
        if let release = verdict.release { fields["SSVC_LIFECYCLE_RELEASE"] = release }
        return fields
    }

    var hookVariables: [String: String] {
        ["SSVC_LIFECYCLE": verdict.state.rawValue, "SSVC_END_OF_LIFE": Self.day(verdict.endOfLife) ?? "", "SSVC_LIFECYCLE_RELEASE": verdict.release ?? ""]
    }

    var metrics: [MetricSample] {
        var samples = LifecycleState.allCases.map { state in
            MetricSample(family: "ssvc_app_lifecycle", labels: [.init(name: "state", value: state.rawValue)], value: state == verdict.state ? "1" : "0")
        }
        // The first instant past the last supported day, as Prometheus's time() compares.
        if let day = verdict.endOfLife {
            let seconds = Int64(CivilTime.clampedSeconds(day.addingTimeInterval(86_400)))
            samples.append(MetricSample(family: "ssvc_app_end_of_life_timestamp_seconds", labels: [], value: String(seconds)))
        }
        return samples
    }

    /// One entry saying where the line stands now.
    func change(from before: LifecycleData.Reported?, in report: AppReport) -> InputChange {
        let name = report.app.name
        let release = verdict.release.map { "release \(DisplayText.escaped($0, limit: 80))" } ?? "the release line"
        let eol = Self.day(verdict.endOfLife)
        let (level, message): (Logger.Level, String)
        switch verdict.state {
        case .supported:
            (level, message) = (.info, "\(name): \(running) is in \(release), supported" + (eol.map { " until \($0)" } ?? ""))
        case .securityOnly:
            let since = Self.day(verdict.supportEnds).map { " (active support lasted until \($0))" } ?? ""
            (level, message) = (.warning, "\(name): \(release) of \(running) has security support only\(since)" + (eol.map { ", supported until \($0)" } ?? ""))
        case .ending:
            (level, message) = (.warning, "\(name): \(release) of \(running) reaches its end of life after \(eol ?? "?")")
        case .endOfLife:
            let extended = Self.day(verdict.extendedUntil).map { "; extended support until \($0)" } ?? ""
            (level, message) = (.error, "\(name): \(release) of \(running) is past its end of life" + (eol.map { " (\($0))" } ?? "") + extended)
        case .unknown:
            (level, message) = (.warning, "\(name): end of life unknown: \(DisplayText.cut(verdict.reason ?? data?.lastError ?? "not read"))")
        }
        return InputChange(level: level, message: message, messageID: .lifecycle, hook: .lifecycle, event: .lifecycle)
    }
}

extension HookRunner.Event.Kind {
    /// The app's lifecycle state changed.
    static let lifecycle = Self(rawValue: "lifecycle")
}

extension AppReport {
    /// The app's end of life as the report shows it; nil when it asks about none.
    var lifecycle: LifecycleVerdict? {
        (verdicts.first { $0.input == EndOfLife.name } as? EndOfLifeVerdict)?.verdict
    }
}
