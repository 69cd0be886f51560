import FoundationEssentials

extension AppState {
    /// The state after a check that started at `time` came to `outcome`.
    ///
    /// A success replaces the stored response, its ETag, signature and
    /// decision (and moves the newest signature time forward), clears
    /// the failure count and the server's Retry-After, and counts each
    /// message shown. A failure keeps the last good response and decision,
    /// counts one more failure and remembers why and the Retry-After. Either
    /// way the running version found (`running`, nil when it could not be
    /// read) is recorded, and a check that sent a request counts toward the
    /// minimum interval. The next check follows from `history`.
    ///
    /// A success's decision is phased under `rollout` (`PhasedRollout`)
    /// and held under `limits`: a newer version may wait in `pending`, or
    /// be kept back in `held`, while the decision before it stays in
    /// force. A failure leaves a pending offer and a kept-back version as
    /// they were.
    package func recording(
        _ outcome: CheckOutcome, running: RunningVersion?, at time: Date, rollout: PhasedRollout.Settings? = nil,
        limits: KeepBackRules? = nil
    ) -> AppState {
        var next = self
        next.lastCheck = time
        if next.firstCheck == nil { next.firstCheck = time }
        if let running {
            next.currentVersion = running.key
            next.currentVersionNumber = running.number
        }
        switch outcome {
        case let .success(evaluation, body, etag, fetched, signature):
            if fetched { next.lastFetch = time }
            next.lastSuccess = time
            next.consecutiveFailures = 0
            next.lastError = nil
            next.retryNotBefore = nil
            next.response = body
            next.etag = etag
            let document = evaluation.decision
            var firstSeen = time
            if let version = PhasedRollout.version(of: document) {
                firstSeen = next.firstSeen(version, at: time)
            }
            // What was in force holds only for the version it was decided
            // for, and so does an offer a limit withdrew.
            let sameVersion = running.map { $0.key == currentVersion } ?? false
            var heldBefore = held
            if !sameVersion { heldBefore?.withdrawn = nil }
            let settled = PhasedRollout.settle(
                document, settings: rollout, limits: limits, firstSeen: firstSeen, offered: sameVersion ? decision : nil,
                previouslyHeld: heldBefore, now: time
            )
            next.decision = settled.decision
            next.pending = settled.pending
            next.held = settled.held
            next.signature = signature
            if let signedAt = signature?.signedAt, signedAt > (next.newestSignatureTime ?? .distantPast) {
                next.newestSignatureTime = signedAt
            }
            if let listed = evaluation.messageKeys {
                next.messages = next.messages.filter { listed.contains($0.key) }
            }
            for notice in evaluation.messages {
                next.messages[notice.key] = (next.messages[notice.key] ?? MessageDisplayRecord()).shown(at: time)
            }
        case let .failure(message, retryAfter, fetched, _):
            if fetched { next.lastFetch = time }
            // Saturates: a state file may hold any number here.
            next.consecutiveFailures = next.consecutiveFailures == .max ? .max : max(next.consecutiveFailures, 0) + 1
            next.lastError = DisplayText.cut(message)
            next.retryNotBefore = retryAfter
        }
        return next
    }
}

extension AppState {
    /// When this machine first saw `version`, remembering it as seen at
    /// `time` when it is new: versions seen within the longest rollout
    /// window are kept, so that T survives a document that shows another
    /// version in between. An earlier release's `latestSeen` counts.
    mutating func firstSeen(_ version: String, at time: Date) -> Date {
        let window = TimeInterval(PhasedRollout.maximumWindowSeconds)
        var kept = (seen ?? latestSeen.map { [$0] } ?? []).filter { time.timeIntervalSince($0.at) <= window }
        let at: Date
        if let known = kept.first(where: { $0.version == version }) {
            at = known.at
        } else {
            at = time
            kept.append(SeenVersion(version: version, at: time))
        }
        seen = Array(kept.suffix(Self.seenKept))
        latestSeen = SeenVersion(version: version, at: at)
        return at
    }
}
