import Logging
import SSVCCore

/// Each check's result and each message shown, as journal entries with the
/// `SSVC_` fields and the catalog's MESSAGE_IDs (docs/operations.md, "The journal").
struct CheckJournal: Sendable {
    let logger: Logger
    /// Hold and unhold lines, bounded per caller as refusals are: a member
    /// of the control-group holding in a loop wrote 20,000 lines in 10 s
    /// into journald's rate limit (issue 52). The state and Watch say every one.
    let holdLines = RefusalLog(linesPerInterval: CheckJournal.holdLinesPerInterval)
    static let holdLinesPerInterval = 30

    /// The fields every entry about an app's state carries.
    private func fields(_ report: AppReport) -> Logger.Metadata {
        let state = report.state
        var metadata: Logger.Metadata = [
            "SSVC_APP": "\(report.app.name)",
            "SSVC_STATUS": "\(report.status.rawValue)",
            "SSVC_URL": "\(report.maskedURL ?? "")",
            "SSVC_CONSECUTIVE_FAILURES": "\(report.consecutiveFailures)",
            "SSVC_NEXT_CHECK": "\(report.next.at.map(RFC3339.format) ?? report.next.reason.rawValue)",
        ]
        if let current = state.currentVersion { metadata["SSVC_CURRENT_VERSION"] = "\(current)" }
        if let latest = report.latestVersion { metadata["SSVC_LATEST_VERSION"] = "\(latest)" }
        if let pending = report.pending {
            metadata["SSVC_PENDING_VERSION"] = "\(pending.version)"
            if let due = pending.dueAt { metadata["SSVC_PHASED_OFFER_AT"] = "\(RFC3339.format(due))" }
            if let cap = pending.cap { metadata["SSVC_ROLLOUT_PERCENTAGE"] = "\(cap)" }
        }
        if let hold = state.hold { metadata["SSVC_HOLD"] = "\(hold.version)" }
        for verdict in report.verdicts {
            for (field, value) in verdict.journalFields { metadata[field] = "\(value)" }
        }
        if let held = report.held {
            metadata["SSVC_HELD_VERSION"] = "\(held.version)"
            metadata["SSVC_HELD_BY"] = "\(held.by.rawValue)"
        }
        return metadata
    }

    /// One entry per check: a warning when it failed or an update is
    /// required, a notice for an update, info otherwise.
    func check(_ report: AppReport, outcome: CheckOutcome) {
        let (app, state, next) = (report.app, report.state, report.next)
        var metadata = fields(report)
        switch outcome {
        case let .failure(whole, _, _, kind):
            // Outside text quoted in an error (a server's, a file's) is held
            // to what the state keeps, in the message and its field alike.
            let message = DisplayText.cut(whole)
            metadata["MESSAGE_ID"] = "\((kind == .signature ? MessageID.signatureRejected : .checkFailed).rawValue)"
            metadata["SSVC_ERROR"] = "\(message)"
            let retry = next.at.map { "; next try \(RFC3339.format($0))" } ?? ""
            logger.warning("\(app.name): check failed: \(message)\(retry)", metadata: metadata)
        case let .success(_, _, _, _, signature):
            metadata["MESSAGE_ID"] = "\(MessageID.forCheck(report.status).rawValue)"
            if let signature {
                metadata["SSVC_KEY_ID"] = "\(signature.keyID)"
                if let signedAt = signature.signedAt { metadata["SSVC_SIGNED_AT"] = "\(RFC3339.format(signedAt))" }
            }
            let current = state.currentVersion ?? "?"
            let latest = report.latestVersion ?? report.latestVersionNumber.map(String.init) ?? "?"
            let phased = report.pending.map { "; \($0.version) phased: \(Self.waiting($0))" } ?? ""
            let held = report.held.map { "; \($0.version) kept back by \($0.by.rawValue)" } ?? ""
            switch report.status {
            case .updateRequired:
                let note = report.note.map { " (\($0))" } ?? ""
                logger.warning("\(app.name): update required: \(current) → \(latest)\(note)", metadata: metadata)
            case .updateAvailable:
                logger.notice("\(app.name): update available: \(current) → \(latest)\(phased)\(held)", metadata: metadata)
            case .upToDate:
                logger.info("\(app.name): up to date (\(current))\(phased)\(held)", metadata: metadata)
            case .ahead:
                logger.info("\(app.name): ahead of the server (\(current), server has \(latest))", metadata: metadata)
            case .unknown:
                logger.info("\(app.name): the response names no version", metadata: metadata)
            }
            // The document was read; an input's read failed beside it: a failed check all the same.
            for failure in report.verdicts.compactMap({ $0.failure }) {
                var failed = fields(report)
                failed["MESSAGE_ID"] = "\(MessageID.checkFailed.rawValue)"
                failed["SSVC_ERROR"] = "\(DisplayText.cut(failure.error))"
                logger.warning("\(app.name): check failed: \(DisplayText.cut(failure.error)); the last findings are kept", metadata: failed)
            }
        }
    }

    /// A phased offer made: the "update available" entry, with the time
    /// the offer was due (`SSVC_PHASED_OFFER_AT`).
    func offer(_ report: AppReport, offer: PhasedOffer) {
        let (app, state) = (report.app, report.state)
        var metadata = fields(report)
        metadata["MESSAGE_ID"] = "\(MessageID.forCheck(report.status).rawValue)"
        metadata["SSVC_PHASED_OFFER_AT"] = "\(RFC3339.format(offer.offerAt))"
        let current = state.currentVersion ?? "?"
        logger.notice(
            "\(app.name): update available: \(current) → \(offer.version) (phased rollout: offered here from \(RFC3339.format(offer.offerAt)))",
            metadata: metadata
        )
    }

    /// "offered here at <time>", or, while the server's cap holds it,
    /// "waiting for the rollout to pass 61.38 %".
    static func waiting(_ offer: PhasedOffer) -> String {
        guard let due = offer.dueAt else {
            return "waiting for the rollout to pass \(PhasedOffer.shareToPass(offer.percentageNeeded)) %"
        }
        return "offered here at \(RFC3339.format(due))"
    }

    /// A hold set or lifted, or the limits changed (which says nothing of
    /// its own: a version it keeps back is told by `keptBack`).
    /// Returns whether the line was written (false past the caller's lines for the interval).
    @discardableResult
    func hold(_ report: AppReport, change: Reporter.HoldChange) -> Bool {
        let app = report.app
        var metadata = fields(report)
        metadata["MESSAGE_ID"] = "\(MessageID.holdChanged.rawValue)"
        let by = { (caller: UInt32?) in caller.map { " (by uid \($0))" } ?? "" }
        switch change {
        case let .set(hold, caller):
            if let caller { metadata["SSVC_CALLER_UID"] = "\(caller)" }
            let text = "\(app.name): held at \(hold.version)\(by(caller)): nothing newer is offered until ssvcctl unhold \(app.name)"
            guard let line = holdLines.line(uid: caller, text, quoting: false) else { return false }
            logger.notice("\(line)", metadata: metadata)
        case let .lifted(hold, caller):
            if let caller { metadata["SSVC_CALLER_UID"] = "\(caller)" }
            metadata["SSVC_HOLD"] = "\(hold.version)"
            guard let line = holdLines.line(uid: caller, "\(app.name): hold at \(hold.version) lifted\(by(caller))", quoting: false) else { return false }
            logger.notice("\(line)", metadata: metadata)
        case .limits:
            break
        }
        return true
    }

    /// A newer version kept back for the first time, and by what.
    func keptBack(_ report: AppReport, held: HeldBack) {
        var metadata = fields(report)
        metadata["MESSAGE_ID"] = "\(MessageID.versionHeld.rawValue)"
        let limits = report.app.limits(hold: report.state.hold)
        logger.notice(
            "\(report.app.name): \(held.version) kept back by \(limits.named(held.by)); running \(report.state.currentVersion ?? "?")",
            metadata: metadata
        )
    }

    /// A newer version began to wait for an offer window, or for another one.
    func windowWait(_ report: AppReport, offer: PhasedOffer) {
        guard let start = offer.windowStart, let end = offer.windowEnd else { return }
        var metadata = fields(report)
        metadata["MESSAGE_ID"] = "\(MessageID.offerWindow.rawValue)"
        metadata["SSVC_WINDOW_START"] = "\(RFC3339.format(start))"
        metadata["SSVC_WINDOW_END"] = "\(RFC3339.format(end))"
        let window = report.app.offerWindows.map { " (\($0.zone.name))" } ?? ""
        logger.info(
            "\(report.app.name): \(offer.version) waits for the offer window from \(RFC3339.format(start)) to \(RFC3339.format(end))\(window); offered here at \(RFC3339.format(offer.offerAt))",
            metadata: metadata
        )
    }

    /// Nothing keeps `was` back any more: a hold was lifted, a limit
    /// changed, or the server moved on.
    func noLongerKeptBack(_ report: AppReport, was: HeldBack) {
        var metadata = fields(report)
        metadata["MESSAGE_ID"] = "\(MessageID.versionHeld.rawValue)"
        logger.info(
            "\(report.app.name): \(was.version) no longer kept back (\(was.by.rawValue)); status \(report.status.rawValue)",
            metadata: metadata
        )
    }

    /// What an input says that it did not say before.
    func input(_ report: AppReport, _ change: InputChange) {
        var metadata = fields(report)
        metadata["MESSAGE_ID"] = "\(change.messageID.rawValue)"
        logger.log(level: change.level, "\(change.message)", metadata: metadata)
    }

    /// A Turkcell message due now.
    func notice(_ app: AppConfiguration, _ notice: MessageNotice) {
        let text = DisplayText.cut(notice.text)
        var metadata: Logger.Metadata = [
            "MESSAGE_ID": "\(MessageID.notice.rawValue)", "SSVC_APP": "\(app.name)", "SSVC_NOTICE_KEY": "\(notice.key)",
        ]
        if let url = notice.description.targetUrl { metadata["SSVC_TARGET_URL"] = "\(url)" }
        logger.notice("\(app.name): \(text)", metadata: metadata)
    }
}
