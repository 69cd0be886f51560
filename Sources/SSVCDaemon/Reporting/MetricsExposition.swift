import FoundationEssentials
import SSVCCore

/// The apps as Prometheus's text exposition format, for node_exporter's
/// textfile collector: gauges only, `# HELP` and `# TYPE` for each family,
/// no sample timestamps (node_exporter refuses a file that has them).
package enum MetricsExposition {
    /// One app's figures.
    package struct App: Sendable, Equatable {
        package var name: String
        package var format: String
        package var schedule: String
        package var currentVersion: String?
        package var latestVersion: String?
        package var status: UpdateStatus
        package var lastCheck: Date?
        package var lastSuccess: Date?
        package var nextCheck: Date?
        /// A newer version phased in later here, and when.
        package var pendingVersion: String?
        package var offerAt: Date?
        /// A newer version a hold, `max-version` or `ignore-versions` keeps back.
        package var held: Bool
        package var consecutiveFailures: Int
        package var stale: Bool
        /// The series each input the app uses adds, by input (`AppInput`).
        var inputs: [String: [MetricSample]] = [:]

        package init(
            name: String, format: String, schedule: String, currentVersion: String?, latestVersion: String?, status: UpdateStatus,
            lastCheck: Date?, lastSuccess: Date?, nextCheck: Date?, pendingVersion: String? = nil, offerAt: Date? = nil,
            held: Bool = false, consecutiveFailures: Int, stale: Bool
        ) {
            self.name = name
            self.format = format
            self.schedule = schedule
            self.currentVersion = currentVersion
            self.latestVersion = latestVersion
            self.status = status
            self.lastCheck = lastCheck
            self.lastSuccess = lastSuccess
            self.nextCheck = nextCheck
            self.pendingVersion = pendingVersion
            self.offerAt = offerAt
            self.held = held
            self.consecutiveFailures = consecutiveFailures
            self.stale = stale
        }
    }

    /// The file's bytes, built in one buffer: a thousand apps make about
    /// a megabyte, and no copy of it is made on the way to the file.
    package static func render(_ apps: [App]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(1_200 * apps.count + 2_000)
        func family(_ name: String, _ help: String, among chosen: [App]? = nil, _ samples: (App) -> [(labels: String, value: String)]) {
            text.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) gauge\n".utf8)
            for app in chosen ?? apps {
                for sample in samples(app) {
                    text.append(contentsOf: "\(name){app=\"\(escape(app.name))\"\(sample.labels)} \(sample.value)\n".utf8)
                }
            }
        }
        func one(_ value: String?) -> [(labels: String, value: String)] { value.map { [("", $0)] } ?? [] }
        func flag(_ value: Bool) -> String { value ? "1" : "0" }
        func seconds(_ date: Date?) -> String? { date.map { String(Int64(date: $0)) } }

        family("ssvc_app_info", "An app ssvcd checks: its format, schedule and versions (1).") { app in
            let labels = ",format=\"\(escape(app.format))\",schedule=\"\(escape(app.schedule))\""
                + ",current_version=\"\(escape(app.currentVersion ?? ""))\",latest_version=\"\(escape(app.latestVersion ?? ""))\""
            return [(labels, "1")]
        }
        family("ssvc_status", "1 for the app's status, 0 for each other status.") { app in
            UpdateStatus.allCases.map { status in (",status=\"\(status.rawValue)\"", flag(status == app.status)) }
        }
        family("ssvc_update_available", "1 when the server offers a newer version.") { one(flag($0.status == .updateAvailable)) }
        family("ssvc_update_required", "1 when the server no longer supports the running version.") { one(flag($0.status == .updateRequired)) }
        family("ssvc_update_pending", "1 while a newer version waits for this machine's turn in a phased rollout.") {
            one(flag($0.pendingVersion != nil))
        }
        family(
            "ssvc_update_offer_timestamp_seconds",
            "When the pending version is offered here (Unix time); absent when none is pending or the server's cap holds it."
        ) {
            one(seconds($0.pendingVersion == nil ? nil : $0.offerAt))
        }
        family("ssvc_update_held", "1 while a hold, max-version or ignore-versions keeps a newer version back.") { one(flag($0.held)) }
        // Each input's families, when an app uses the input.
        for input in AppInputs.all {
            let using = apps.filter { $0.inputs[input.name] != nil }
            guard !using.isEmpty else { continue }
            for metric in input.metricFamilies {
                family(metric.name, metric.help, among: using) { app in
                    (app.inputs[input.name] ?? []).filter { $0.family == metric.name }.map { sample in
                        (labels: sample.labels.map { ",\($0.name)=\"\(escape($0.value))\"" }.joined(), value: sample.value)
                    }
                }
            }
        }
        family("ssvc_last_check_timestamp_seconds", "When the last check ran, successful or not (Unix time).") { one(seconds($0.lastCheck)) }
        family("ssvc_last_success_timestamp_seconds", "When the last check succeeded (Unix time).") { one(seconds($0.lastSuccess)) }
        family("ssvc_next_check_timestamp_seconds", "When the next check is due (Unix time); absent when checks are manual only.") {
            one(seconds($0.nextCheck))
        }
        family("ssvc_consecutive_failures", "Failed checks since the last success.") { one(String($0.consecutiveFailures)) }
        family("ssvc_stale", "1 when the app's information may be outdated: no success for two periods, or an expired signature.") {
            one(flag($0.stale))
        }
        return text
    }

    /// A label value as the format wants it: backslash, double quote and
    /// line feed escaped.
    /// The most bytes of a label's value: whatever a state file from an
    /// older release holds, no series can fail a scraper's label limits.
    static let maximumLabelBytes = DisplayText.maximumVersionBytes
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in DisplayText.cut(value, bytes: maximumLabelBytes).unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

private extension Int64 {
    /// Whole Unix seconds.
    init(date: Date) { self = Int64(CivilTime.clampedSeconds(date).rounded(.down)) }
}
