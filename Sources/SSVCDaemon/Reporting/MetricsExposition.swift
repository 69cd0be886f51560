import FoundationEssentials
import SSVCCore

/// The apps as Prometheus's text exposition format, for node_exporter's
/// textfile collector: gauges only, `# HELP` and `# TYPE` for each family,
/// no sample timestamps (node_exporter refuses a file that has them).
public enum MetricsExposition {
    /// One app's figures.
    public struct App: Sendable, Equatable {
        public var name: String
        public var format: String
        public var schedule: String
        public var currentVersion: String?
        public var latestVersion: String?
        public var status: UpdateStatus
        public var lastCheck: Date?
        public var lastSuccess: Date?
        public var nextCheck: Date?
        /// A newer version phased in later here, and when.
        public var pendingVersion: String?
        public var offerAt: Date?
        /// A newer version a hold, `max-version` or `ignore-versions` keeps back.
        public var held: Bool
        public var consecutiveFailures: Int
        public var stale: Bool
        /// The app's advisory state; nil when it asks about none.
        public var advisoryState: AdvisoryState? = nil
        /// The affecting advisories not ignored: id, fixed version, severity.
        public var advisories: [(id: String, fixed: String?, severity: String?)] = []
        /// All the affecting advisories not ignored, listed or not.
        public var advisoryCount = 0

        public static func == (a: App, b: App) -> Bool {
            a.name == b.name && a.format == b.format && a.schedule == b.schedule && a.currentVersion == b.currentVersion
                && a.latestVersion == b.latestVersion && a.status == b.status && a.lastCheck == b.lastCheck
                && a.lastSuccess == b.lastSuccess && a.nextCheck == b.nextCheck && a.pendingVersion == b.pendingVersion
                && a.offerAt == b.offerAt && a.held == b.held && a.consecutiveFailures == b.consecutiveFailures && a.stale == b.stale
                && a.advisoryState == b.advisoryState && a.advisoryCount == b.advisoryCount && a.advisories.map(\.id) == b.advisories.map(\.id)
                && a.advisories.map(\.fixed) == b.advisories.map(\.fixed) && a.advisories.map(\.severity) == b.advisories.map(\.severity)
        }

        public init(
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
    public static func render(_ apps: [App]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(1_200 * apps.count + 2_000)
        func family(_ name: String, _ help: String, _ samples: (App) -> [(labels: String, value: String)]) {
            text.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) gauge\n".utf8)
            for app in apps {
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
        let advised = apps.filter { $0.advisoryState != nil }
        if !advised.isEmpty {
            text.append(contentsOf: "# HELP ssvc_advisory_state 1 for the app's advisory state (clear, affected, unknown), 0 for each other.\n# TYPE ssvc_advisory_state gauge\n".utf8)
            for app in advised {
                for state in AdvisoryState.allCases {
                    text.append(contentsOf: "ssvc_advisory_state{app=\"\(escape(app.name))\",state=\"\(state.rawValue)\"} \(flag(state == app.advisoryState))\n".utf8)
                }
            }
            text.append(contentsOf: "# HELP ssvc_app_advisories Advisories affecting the running version, ignored ones aside; absent while unknown.\n# TYPE ssvc_app_advisories gauge\n".utf8)
            for app in advised where app.advisoryState != .unknown {
                text.append(contentsOf: "ssvc_app_advisories{app=\"\(escape(app.name))\"} \(app.advisoryCount)\n".utf8)
            }
            text.append(contentsOf: "# HELP ssvc_app_advisory_info An advisory affecting the running version (1), at most \(maximumAdvisorySeries) per app.\n# TYPE ssvc_app_advisory_info gauge\n".utf8)
            for app in advised where app.advisoryState != .unknown {
                for advisory in app.advisories.prefix(maximumAdvisorySeries) {
                    text.append(contentsOf: ("ssvc_app_advisory_info{app=\"\(escape(app.name))\",id=\"\(escape(advisory.id))\""
                        + ",fixed=\"\(escape(advisory.fixed ?? ""))\",severity=\"\(escape(advisory.severity ?? ""))\"} 1\n").utf8)
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
    /// The most `ssvc_app_advisory_info` series of one app: the count is exact, the series bounded.
    public static let maximumAdvisorySeries = 16

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
