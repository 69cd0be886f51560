import FoundationEssentials

/// Where the running version stands against published advisories.
package enum AdvisoryState: String, Sendable, Equatable, Codable, CaseIterable {
    /// No advisory affects it (ignored ones aside).
    case clear
    /// At least one does.
    case affected
    /// Never read, or no successful read within `advisories-max-age-days`
    /// (stale data is never taken for clear), or nothing affects but a
    /// range that could was not evaluated (`AdvisoryData.undecided`).
    case unknown
}

/// An app's advisories as shown at one instant: the stored data read under
/// the ignore list, the age limit and the version server's latest. Derived
/// each time it is shown, never stored (SPEC §13).
package struct AdvisoryVerdict: Sendable, Equatable {
    package var state: AdvisoryState
    /// The affecting advisories that are not ignored.
    package var advisories: [AdvisoryFinding]
    /// Ids of affecting advisories that are ignored.
    package var ignored: [String]
    /// The advisory whose fix the version server offers: the update is then required.
    package var requiredBy: AdvisoryFinding?
    /// Affecting advisories past the ones kept (counted, not listed).
    package var omitted: Int

    /// Every affecting advisory not ignored, listed or not: the metric's count.
    package var count: Int { advisories.count + omitted }

    /// - Parameters:
    ///   - latest: the newest version the app's version server names; nil
    ///     for an app without one, whose every fix counts as offered.
    ///   - scheme: the app's scheme, used when the ecosystem's order cannot
    ///     read the latest version.
    package init(data: AdvisoryData?, settings: AdvisorySettings, latest: String?, hasServer: Bool, scheme: VersionScheme, now: Date) {
        let inForce = Set(settings.ignores.filter { $0.applies(at: now) }.map(\.id))
        let findings = data?.findings ?? []
        advisories = findings.filter { !$0.isNamed(anyOf: inForce) }
        ignored = findings.filter { $0.isNamed(anyOf: inForce) }.map(\.id)
        omitted = data?.omitted ?? 0
        let maxAge = TimeInterval(settings.maxAgeDays) * 86_400
        if let checked = data?.checked, now.timeIntervalSince(checked) <= maxAge {
            // A range that could affect but was not evaluated leaves it undecided, never clear.
            state = !advisories.isEmpty || omitted > 0 ? .affected : (data?.undecided ?? 0) > 0 ? .unknown : .clear
        } else {
            state = .unknown
        }
        // Stale findings keep deciding (SPEC §13): an update they made
        // required stays required, though the state says unknown.
        guard !advisories.isEmpty else {
            requiredBy = nil
            return
        }
        let order = EcosystemOrder(ecosystem: settings.ecosystem)
        // The offer is the fix when it is at or above `fixed` and the record does not affect it again.
        requiredBy = advisories.first { finding in
            guard let fixed = finding.fixed else { return false }
            guard hasServer else { return true }
            guard let latest else { return false }
            if case let .ordered(ecosystemScheme) = order, let comparison = try? ecosystemScheme.compare(fixed, latest) {
                return comparison != .newer && !finding.stillAffects(latest, in: ecosystemScheme)
            }
            guard (try? scheme.compare(fixed, latest)).map({ $0 != .newer }) == true else { return false }
            return !finding.stillAffects(latest, in: scheme)
        }
    }

    /// The note `update-required` carries when an advisory made it so.
    package var requiredNote: String? {
        requiredBy.map { finding in "required: \(finding.id) is fixed in \(finding.fixed ?? "")" }
    }

    /// What the journal says of this verdict, to tell a change.
    package var reported: AdvisoryData.Reported {
        AdvisoryData.Reported(state: state, ids: advisories.map(\.id))
    }

    /// Ids that apply again because their ignore entry lapsed before `now`.
    package static func lapsed(_ ids: [String], settings: AdvisorySettings, findings: [AdvisoryFinding], now: Date) -> [String] {
        ids.filter { id in
            guard let finding = findings.first(where: { $0.id == id }) else { return false }
            return settings.ignores.contains { !$0.applies(at: now) && finding.isNamed($0.id) }
        }
    }

    /// Affected with no fix offered (by fresh findings, or stale ones that
    /// still decide): `ssvcctl status` and `check` exit 13.
    package var affectedWithoutFix: Bool { !advisories.isEmpty && requiredBy == nil }
}
