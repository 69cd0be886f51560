import FoundationEssentials
import Logging
import SSVCControl
import SSVCCore

/// An app's advisories as one report shows them: the verdict, derived
/// once, and what it adds to every output.
struct AdvisoriesVerdict: InputVerdict {
    let verdict: AdvisoryVerdict
    let settings: AdvisorySettings
    let data: AdvisoryData?
    let said: AdvisoryData.Reported?
    let requirement: InputRequirement?
    let notes: [String]
    let failure: InputFailure?
    let changesAt: [Date]
    /// The version the findings were read for, else the running one.
    private let running: String

    var input: String { Advisories.name }

    init(_ verdict: AdvisoryVerdict, settings: AdvisorySettings, data: AdvisoryData?, said: AdvisoryData.Reported?, currentVersion: String?) {
        self.verdict = verdict
        self.settings = settings
        self.data = data
        self.said = said
        requirement = verdict.requiredBy.map { finding in
            InputRequirement(version: finding.fixed, note: verdict.requiredNote ?? "required: \(finding.id)")
        }
        // A failed read keeps the last findings, and says so.
        if let data, data.consecutiveFailures > 0, let error = data.lastError {
            failure = InputFailure(error: error.hasPrefix("advisories") ? error : "advisories: \(error)", count: data.consecutiveFailures)
            let kept = data.checked.map { "the findings read \(RFC3339.format($0)) are kept" } ?? "nothing was read yet"
            notes = data.notes + ["advisories not read (\(data.consecutiveFailures) in a row): \(kept)"]
        } else {
            failure = nil
            notes = data?.notes ?? []
        }
        // The age limit, and each ignore entry's end.
        changesAt = (data?.checked.map { [$0.addingTimeInterval(Double(settings.maxAgeDays) * 86_400)] } ?? [])
            + settings.ignores.compactMap(\.lapsesAt)
        running = data?.version ?? currentVersion ?? "?"
    }

    func show(in status: inout AppStatus) {
        status.advisoryState = verdict.state
        status.advisoriesChecked = data?.checked.map(RFC3339.format)
        status.advisories = verdict.advisories.map(AppStatus.Advisory.init)
        status.advisoriesOmitted = verdict.omitted
        status.ignoredAdvisories = verdict.ignored
    }

    var journalFields: [String: String] {
        var fields = ["SSVC_ADVISORY_STATE": verdict.state.rawValue]
        if !verdict.advisories.isEmpty { fields["SSVC_ADVISORIES"] = verdict.advisories.map(\.id).joined(separator: " ") }
        return fields
    }

    var hookVariables: [String: String] {
        ["SSVC_ADVISORY_STATE": verdict.state.rawValue, "SSVC_ADVISORIES": verdict.advisories.map(\.id).joined(separator: " ")]
    }

    var metrics: [MetricSample] {
        var samples = AdvisoryState.allCases.map { state in
            MetricSample(family: "ssvc_advisory_state", labels: [.init(name: "state", value: state.rawValue)], value: state == verdict.state ? "1" : "0")
        }
        // Unknown with no findings has no count; stale findings still count (they keep deciding).
        guard verdict.state != .unknown || !verdict.advisories.isEmpty else { return samples }
        samples.append(MetricSample(family: "ssvc_app_advisories", labels: [], value: String(verdict.count)))
        for finding in verdict.advisories.prefix(Advisories.maximumInfoSeries) {
            let labels: [MetricSample.Label] = [
                .init(name: "id", value: finding.id), .init(name: "fixed", value: finding.fixed ?? ""), .init(name: "severity", value: finding.severity ?? ""),
            ]
            samples.append(MetricSample(family: "ssvc_app_advisory_info", labels: labels, value: "1"))
        }
        return samples
    }

    /// One entry saying what affects the app now, which ignore entries
    /// lapsed, or that none does.
    func change(from before: AdvisoryData.Reported?, in report: AppReport) -> InputChange {
        let name = report.app.name
        let lapsed = lapsed(since: before, now: report.now)
        let lapse = lapsed.isEmpty ? "" : "; ignore-advisories lapsed for \(lapsed.map { DisplayText.escaped($0, limit: 80) }.joined(separator: ", "))"
        let (level, message): (Logger.Level, String)
        switch verdict.state {
        case .affected:
            let listed = verdict.advisories.prefix(8).map { finding in
                DisplayText.escaped(finding.id, limit: 80) + (finding.fixed.map { " (fixed in \(DisplayText.escaped($0, limit: 80)))" } ?? " (no fix)")
            }
            let more = verdict.advisories.count > 8 ? " and \(verdict.advisories.count - 8) more" : ""
            let required = verdict.requiredBy != nil ? ": update required" : ""
            (level, message) = (.warning, "\(name): \(running) is affected by \(listed.joined(separator: ", "))\(more)\(required)\(lapse)")
        case .clear:
            let ignored = verdict.ignored.isEmpty ? "" : " (\(verdict.ignored.count) ignored)"
            (level, message) = (.info, "\(name): no known advisory affects \(running)\(ignored)")
        case .unknown:
            let undecided = data?.undecided ?? 0
            let fresh = data?.checked.map { report.now.timeIntervalSince($0) <= Double(settings.maxAgeDays) * 86_400 } ?? false
            let why = if fresh, undecided > 0 {
                ": \(undecided) ranges or records that could affect \(running) were not evaluated (see the note)"
            } else {
                data?.lastError.map { ": \(DisplayText.cut($0))" } ?? ": not read within advisories-max-age-days"
            }
            (level, message) = (.warning, "\(name): advisories unknown\(why)")
        }
        return InputChange(level: level, message: message, messageID: .advisories, hook: .advisory, event: .advisory)
    }

    /// The advisories told now that were not before because their ignore entry lapsed.
    private func lapsed(since before: AdvisoryData.Reported?, now: Date) -> [String] {
        let said = before?.ids ?? []
        return AdvisoryVerdict.lapsed(
            verdict.advisories.map(\.id).filter { !said.contains($0) }, settings: settings, findings: data?.findings ?? [], now: now
        )
    }
}

extension HookRunner.Event.Kind {
    /// The advisories affecting the app changed.
    static let advisory = Self(rawValue: "advisory")
}

extension AppReport {
    /// The app's advisories as the report shows them; nil when it asks about none.
    var advisories: AdvisoryVerdict? {
        (verdicts.first { $0.input == Advisories.name } as? AdvisoriesVerdict)?.verdict
    }
}
