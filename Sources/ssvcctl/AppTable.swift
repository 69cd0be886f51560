import FoundationEssentials
import SSVCControl
import SSVCCore

/// The human-readable forms of `ssvcctl status`, `check` and `watch`.
enum AppTable {
    static func render(_ apps: [AppStatus]) -> String {
        guard !apps.isEmpty else { return "no apps configured" }
        let apps = apps.map(\.shownToPeople)
        // ASCII only: the table reads the same under LC_ALL=C.
        let header = ["APP", "STATUS", "CURRENT -> LATEST", "LAST CHECK", "NEXT CHECK"]
        var rows = [header]
        var notes: [String] = []
        for app in apps {
            rows.append([
                app.name,
                app.status.rawValue + (app.stale ? " (stale)" : ""),
                versions(app),
                app.lastCheck.map { TimeText.shown($0) } ?? "never",
                (app.nextCheck.map { "\(TimeText.shown($0)) " } ?? "") + "[\(app.nextCheckReason.rawValue)]",
            ])
            if let error = app.lastError, app.consecutiveFailures > 0 {
                notes.append("\(app.name): \(app.consecutiveFailures) failed check(s): \(error)")
            }
            if let pending = app.pendingVersion {
                notes.append("\(app.name): \(pending) " + (windowWait(app) ?? "phased: \(waiting(app))"))
            }
            if let held = held(app) { notes.append("\(app.name): \(held)") }
            notes += advisoryNotes(app).map { "\(app.name): \($0)" }
            if let lifecycle = lifecycleNote(app) { notes.append("\(app.name): \(lifecycle)") }
            if let restart = restartNote(app) { notes.append("\(app.name): \(restart)") }
            if let note = app.note { notes.append("\(app.name): \(note)") }
            if let proxy = app.proxy { notes.append("\(app.name): through proxy \(proxy)") }
            if let key = app.signatureKeyId {
                notes.append("\(app.name): signed by key \(key)" + (app.signedAt.map { " at \(TimeText.local($0))" } ?? ""))
            }
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count)
            }.joined(separator: "  ")
        }
        return (lines + notes).joined(separator: "\n")
    }

    /// Why the pending version is not offered yet: "offered here at
    /// <time>" or "waiting for the rollout to pass 61.38 %".
    static func waiting(_ app: AppStatus) -> String {
        if let offerAt = app.offerAt { return "offered here at \(TimeText.local(offerAt))" }
        if let needed = app.offerAtPercentage {
            return "waiting for the rollout to pass \(PhasedOffer.shareToPass(needed)) %"
                + (app.rolloutPercentage.map { " (now \(PhasedOffer.shareShown($0)) %)" } ?? "")
        }
        return "offered here at ?"
    }

    /// "waits for the window Sat 23:30 UTC (in 2 days), offered here at
    /// Sat 23:47 UTC"; nil when the pending version waits for no window.
    static func windowWait(_ app: AppStatus) -> String? {
        guard let window = app.nextWindow, let start = RFC3339.parse(window.start) else { return nil }
        var text = "waits for the window \(TimeText.weekday(start)) (\(TimeText.relative(start, now: Date())))"
        if let offerAt = app.offerAt, let at = RFC3339.parse(offerAt), at > start { text += ", offered here at \(TimeText.weekday(at))" }
        return text
    }

    /// "2.0 kept back by the hold at 1.2 (since …)", "held at 1.2 since …"
    /// when nothing is kept back yet; nil without a hold or a kept version.
    static func held(_ app: AppStatus) -> String? {
        if let version = app.heldVersion {
            let by = app.heldBy == HeldBy.hold.rawValue ? "the hold at \(app.hold ?? "?")" : (app.heldBy ?? "?")
            return "\(version) kept back by \(by)" + (app.heldSince.map { " since \(TimeText.local($0))" } ?? "")
        }
        guard let hold = app.hold else { return nil }
        return "held at \(hold)" + (app.holdSince.map { " since \(TimeText.local($0))" } ?? "")
    }

    /// "advisories: affected, read 2026-11-26 10:00" then one line per
    /// advisory: id, fixed-in, score, summary; nothing for an app that asks about none.
    static func advisoryNotes(_ app: AppStatus) -> [String] {
        guard let state = app.advisoryState else { return [] }
        let read = app.advisoriesChecked.map { "read \(TimeText.shown($0))" } ?? "never read"
        let ignored = (app.ignoredAdvisories ?? []).isEmpty ? "" : ", \(app.ignoredAdvisories!.count) ignored"
        var lines = ["advisories \(state.rawValue) (\(read)\(ignored))"]
        for advisory in app.advisories ?? [] {
            let fixed = advisory.fixed.map { "fixed in \($0)" } ?? "no fix"
            let score = advisory.score.map { ", score \($0)" } ?? ""
            let summary = advisory.summary.map { ": \($0)" } ?? ""
            lines.append("  \(advisory.id) (\(fixed)\(score))\(summary)")
        }
        if let omitted = app.advisoriesOmitted, omitted > 0 { lines.append("  ... and \(omitted) more") }
        return lines
    }

    static func versions(_ app: AppStatus) -> String {
        let current = app.currentVersion ?? "?"
        let latest = app.latestVersion ?? app.latestVersionNumber.map(String.init)
        return latest.map { "\(current) -> \($0)" } ?? current
    }

    /// "end-of-life: release 1.23 (end of life 2025-08-12; newest 1.23.12),
    /// read …"; nil for an app that asks about no end of life.
    static func lifecycleNote(_ app: AppStatus) -> String? {
        guard let state = app.lifecycle else { return nil }
        var dates: [String] = []
        if let ends = app.supportEnds { dates.append("active support until \(ends)") }
        if let eol = app.endOfLife { dates.append("end of life \(eol)") }
        if let extended = app.extendedUntil { dates.append("extended support until \(extended)") }
        if let latest = app.latestInRelease { dates.append("newest \(latest)") }
        let release = app.lifecycleRelease.map { ": release \($0)" + (dates.isEmpty ? "" : " (\(dates.joined(separator: "; ")))") } ?? ""
        let read = app.lifecycleChecked.map { "read \(TimeText.shown($0))" } ?? "never read"
        return "lifecycle \(state.rawValue)\(release), \(read)"
    }

    /// "restart pending: 2.0 installed, 1.9 running, since …".
    static func restartNote(_ app: AppStatus) -> String? {
        guard let pending = app.restartPending else { return nil }
        let overdue = pending.overdue ? " (overdue)" : ""
        return "restart pending: \(pending.installed) installed, \(pending.running) running, since \(TimeText.local(pending.since))\(overdue)"
    }

    static func describe(_ event: ControlEvent) -> String {
        var event = event
        event.app = event.app?.shownToPeople
        event.message = event.message?.shownToPeople
        switch event.kind {
        case .reload:
            return "\(TimeText.local(event.at)) reload"
        case .notice:
            let text = [event.message?.title, event.message?.message].compactMap { $0 }.joined(separator: ": ")
            return "\(TimeText.local(event.at)) notice \(event.app?.name ?? "?"): \(text)"
        case .check:
            guard let app = event.app else { return "\(TimeText.local(event.at)) check" }
            let failure = app.consecutiveFailures > 0 ? " (failed: \(app.lastError ?? "?"))" : ""
            let phased = app.pendingVersion.map { " (\($0) phased: \(waiting(app)))" } ?? ""
            let held = held(app).map { " (\($0))" } ?? ""
            return "\(TimeText.local(event.at)) check \(app.name) \(app.status.rawValue) \(versions(app))\(failure)\(phased)\(held)"
        case .offer:
            guard let app = event.app else { return "\(TimeText.local(event.at)) offer" }
            return "\(TimeText.local(event.at)) offer \(app.name) \(app.status.rawValue) \(versions(app)) (phased rollout: its turn here came)"
        case .hold:
            guard let app = event.app else { return "\(TimeText.local(event.at)) hold" }
            let held = held(app) ?? "not held"
            return "\(TimeText.local(event.at)) hold \(app.name) \(app.status.rawValue) \(versions(app)) (\(held))"
        case .advisory:
            guard let app = event.app else { return "\(TimeText.local(event.at)) advisory" }
            let ids = (app.advisories ?? []).map(\.id).joined(separator: ", ")
            return "\(TimeText.local(event.at)) advisory \(app.name) \(app.advisoryState?.rawValue ?? "?")" + (ids.isEmpty ? "" : " (\(ids))")
        case .lifecycle:
            guard let app = event.app else { return "\(TimeText.local(event.at)) lifecycle" }
            let note = lifecycleNote(app).map { String($0.dropFirst("lifecycle ".count)) } ?? "?"
            return "\(TimeText.local(event.at)) lifecycle \(app.name) \(note)"
        case .restart:
            guard let app = event.app else { return "\(TimeText.local(event.at)) restart" }
            return "\(TimeText.local(event.at)) restart \(app.name): " + (restartNote(app) ?? "no restart pending")
        }
    }
}

extension AppStatus {
    /// A copy whose every text a server or a file could have set is
    /// escaped (`DisplayText`) and cut to a length a table can show: for
    /// the human forms only; `--json` keeps the exact text.
    var shownToPeople: AppStatus {
        var copy = self
        let shown = { (text: String) in DisplayText.escaped(text) }
        copy.url = url.map(shown)
        copy.ignoredAdvisories = ignoredAdvisories?.map(shown)
        copy.advisories = advisories?.map { advisory in
            var advisory = advisory
            advisory.id = shown(advisory.id)
            advisory.aliases = advisory.aliases.map(shown)
            advisory.summary = advisory.summary.map { DisplayText.escaped($0, limit: 160) }
            advisory.severity = advisory.severity.map(shown)
            advisory.fixed = advisory.fixed.map(shown)
            advisory.url = advisory.url.map(shown)
            return advisory
        }
        copy.lifecycleRelease = lifecycleRelease.map(shown)
        copy.latestInRelease = latestInRelease.map(shown)
        copy.restartPending = restartPending.map { pending in
            var pending = pending
            pending.installed = shown(pending.installed)
            pending.running = shown(pending.running)
            return pending
        }
        copy.proxy = proxy.map(shown)
        copy.currentVersion = currentVersion.map(shown)
        copy.latestVersion = latestVersion.map(shown)
        copy.pendingVersion = pendingVersion.map(shown)
        copy.hold = hold.map(shown)
        copy.heldVersion = heldVersion.map(shown)
        copy.heldBy = heldBy.map(shown)
        copy.lastError = lastError.map(shown)
        copy.note = note.map(shown)
        copy.signatureKeyId = signatureKeyId.map(shown)
        copy.description = description?.shownToPeople
        return copy
    }
}

extension UpdateDescription {
    /// Each text escaped and cut, as `AppStatus.shownToPeople` does.
    var shownToPeople: UpdateDescription {
        let shown = { (text: String) in DisplayText.escaped(text) }
        return UpdateDescription(
            message: message.map(shown), whatIsNew: whatIsNew.map(shown), warnings: warnings.map(shown),
            title: title.map(shown), targetUrl: targetUrl.map(shown)
        )
    }
}
