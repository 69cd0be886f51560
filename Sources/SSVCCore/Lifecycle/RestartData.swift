import FoundationEssentials

/// What the daemon keeps of an app's installed version between checks (in
/// `state.json`, SPEC §15): the version installed and the one running at
/// the last read, and since when they differ, kept across restarts.
package struct RestartData: Sendable, Equatable, Codable {
    /// The installed version at the last successful read, as the app's scheme reads it.
    package var installed: String?
    /// The running version it was compared with.
    package var running: String?
    /// When this pair was first seen to differ; nil while they agree.
    package var since: Date?
    package var checked: Date?
    package var lastAttempt: Date?
    package var consecutiveFailures: Int
    package var lastError: String?
    /// What the journal last said: pending (the installed version) or not (nil).
    package var reported: Reported?

    package struct Reported: Sendable, Equatable, Codable {
        /// The installed version a restart is pending for; nil: none is.
        package var installed: String?

        package init(installed: String?) {
            self.installed = installed
        }
    }

    package init() {
        consecutiveFailures = 0
    }

    /// The data after reading `installed` beside `running` at `now`:
    /// `since` kept while the same installed version differs.
    package func read(installed: String, running: String, scheme: VersionScheme, at now: Date) -> RestartData {
        var next = self
        next.checked = now
        next.lastAttempt = now
        next.consecutiveFailures = 0
        next.lastError = nil
        let differs = Self.differ(installed, running, scheme: scheme)
        next.since = differs ? (self.since != nil && self.installed == installed ? self.since : now) : nil
        next.installed = installed
        next.running = running
        return next
    }

    /// The data after a failed read: the last good one is kept.
    package func failed(_ error: String, at now: Date) -> RestartData {
        var next = self
        next.lastAttempt = now
        next.consecutiveFailures = consecutiveFailures == .max ? .max : consecutiveFailures + 1
        next.lastError = DisplayText.cut(error)
        return next
    }

    /// Whether two versions differ in `scheme`; text that the scheme cannot
    /// read differs when it is not the same text.
    package static func differ(_ installed: String, _ running: String, scheme: VersionScheme) -> Bool {
        guard let comparison = try? scheme.compare(installed, running) else { return installed != running }
        return comparison != .same
    }

    // Files written before a field existed read with its default.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        installed = try container.decodeIfPresent(String.self, forKey: .installed)
        running = try container.decodeIfPresent(String.self, forKey: .running)
        since = try container.decodeIfPresent(Date.self, forKey: .since)
        checked = try container.decodeIfPresent(Date.self, forKey: .checked)
        lastAttempt = try container.decodeIfPresent(Date.self, forKey: .lastAttempt)
        consecutiveFailures = try container.decodeIfPresent(Int.self, forKey: .consecutiveFailures) ?? 0
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        reported = try container.decodeIfPresent(Reported.self, forKey: .reported)
    }
}

/// Whether a restart is pending at one instant, and how long it has been.
package struct RestartVerdict: Sendable, Equatable {
    /// Installed and running differ: `{installed, running, since}`.
    package var pending: (installed: String, running: String, since: Date)? {
        guard let installed, let running, let since else { return nil }
        return (installed, running, since)
    }
    package var installed: String?
    package var running: String?
    package var since: Date?
    /// Pending for longer than `restart-pending-critical-days`.
    package var critical: Bool
    /// When it turns critical with no new read.
    package var changesAt: [Date]

    package init(data: RestartData?, criticalDays: Int, now: Date) {
        guard let data, let since = data.since, let installed = data.installed, let running = data.running else {
            (installed, running, self.since, critical, changesAt) = (nil, nil, nil, false, [])
            return
        }
        (self.installed, self.running, self.since) = (installed, running, since)
        let turns = since.addingTimeInterval(Double(criticalDays) * 86_400)
        critical = now >= turns
        changesAt = critical ? [] : [turns]
    }

    /// What the journal says of it, to tell a change.
    package var reported: RestartData.Reported {
        RestartData.Reported(installed: since == nil ? nil : installed)
    }
}
