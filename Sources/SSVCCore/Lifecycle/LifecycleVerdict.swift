import FoundationEssentials

/// Where an app's release line stands in its lifecycle (SPEC §15).
package enum LifecycleState: String, Sendable, Equatable, Codable, CaseIterable {
    /// In active support, or in a product without that phase, and not ending.
    case supported
    /// Active support has ended; security support has not.
    case securityOnly = "security-only"
    /// End of life within `lifecycle-warn-days`.
    case ending
    /// Past its end of life.
    case endOfLife = "end-of-life"
    /// Never read, not read within `lifecycle-max-age-days`, or no release matches.
    case unknown
}

/// An app's lifecycle as shown at one instant: the stored release read by
/// the daemon's clock. Derived each time it is shown, never stored: the
/// answer's booleans were frozen when its data was built, so only its
/// dates decide (a flag counts where its date is null).
package struct LifecycleVerdict: Sendable, Equatable {
    package var state: LifecycleState
    /// The matched release's name.
    package var release: String?
    /// End of active support, end of life, and the end of extended support
    /// while it lasts past the end of life.
    package var supportEnds: Date?
    package var endOfLife: Date?
    package var extendedUntil: Date?
    /// The newest version of the release (`latest.name`).
    package var latestInRelease: String?
    /// `latestInRelease` is newer than the running version in the app's scheme.
    package var newerInRelease: Bool
    /// Why the state is unknown, or what else the note should say.
    package var reason: String?
    /// Instants at which the state changes with no new read.
    package var changesAt: [Date]

    /// - Parameters:
    ///   - running: the running version, as the app's scheme reads it; nil when not known.
    package init(data: LifecycleData?, settings: LifecycleSettings, running: String?, scheme: VersionScheme, now: Date) {
        let release = data?.release
        self.release = release?.name
        supportEnds = release?.activeSupport?.day
        endOfLife = release?.endOfLife.day
        latestInRelease = release?.latest
        // Only a version in the app's scheme can be newer: `stable` is none
        // (dotted compares any text, so it is validated first).
        if let latest = release?.latest, let running, (try? scheme.validate(latest)) != nil,
           let comparison = try? scheme.compare(latest, running) {
            newerInRelease = comparison == .newer
        } else {
            newerInRelease = false
        }
        extendedUntil = nil
        reason = nil
        let maxAge = TimeInterval(settings.maxAgeDays) * 86_400
        var changes: [Date] = []
        guard let data, let checked = data.checked else {
            state = .unknown
            reason = "end of life not read yet"
            changesAt = []
            return
        }
        changes.append(checked.addingTimeInterval(maxAge))
        guard now.timeIntervalSince(checked) <= maxAge else {
            state = .unknown
            reason = "end of life not read since \(RFC3339.format(checked)), more than lifecycle-max-age-days (\(settings.maxAgeDays)) ago"
            changesAt = []
            return
        }
        guard let release else {
            state = .unknown
            reason = data.unmatched ?? "no release matches"
            changesAt = changes
            return
        }
        let endOfLife = release.endOfLife
        if endOfLife.hasEnded(at: now) {
            state = .endOfLife
            if let extended = release.extendedSupport, let day = extended.day, !extended.hasEnded(at: now) {
                extendedUntil = day
                changes.append(day.addingTimeInterval(86_400))
            }
        } else if let day = endOfLife.day, now >= day.addingTimeInterval(-Double(settings.warnDays) * 86_400) {
            state = .ending
            changes.append(day.addingTimeInterval(86_400))
        } else if release.activeSupport?.hasEnded(at: now) == true {
            state = .securityOnly
        } else {
            state = .supported
        }
        // The day after each date still ahead: a phase ends, a warning begins.
        if let day = endOfLife.day {
            changes.append(day.addingTimeInterval(-Double(settings.warnDays) * 86_400))
            changes.append(day.addingTimeInterval(86_400))
        }
        if let day = release.activeSupport?.day { changes.append(day.addingTimeInterval(86_400)) }
        if let day = release.extendedSupport?.day { changes.append(day.addingTimeInterval(86_400)) }
        changesAt = changes.filter { $0 > now }
    }

    /// What the journal says of this verdict, to tell a change.
    package var reported: LifecycleData.Reported {
        LifecycleData.Reported(state: state, release: release)
    }

    /// Nagios's and the exit code's view: 0 fine, 1 warning, 2 critical.
    package var severity: Int {
        switch state {
        case .supported, .unknown: 0
        case .securityOnly, .ending: 1
        case .endOfLife: 2
        }
    }
}
