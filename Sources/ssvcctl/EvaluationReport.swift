import FoundationEssentials
import SSVCCore

/// What `ssvcctl evaluate` prints: the decision with the running version.
struct EvaluationReport: Encodable {
    let status: UpdateStatus
    let updateAvailable: Bool
    let updateRequired: Bool
    let currentVersion: String
    let currentVersionNumber: UInt64?
    let latestVersion: String?
    let latestVersionNumber: UInt64?
    let minimumSupportedVersionNumber: UInt64?
    let availableSince: String?
    let note: String?
    let description: UpdateDescription?
    /// Turkcell only: the messages that would be shown now.
    let messages: [MessageReport]?
    let request: String?
    /// The verified signature, when one was checked.
    let signature: SignatureReport?
    /// A newer version phased in later at the given position, and when.
    let pendingVersion: String?
    let offerAt: String?
    /// The publisher's cap, and the share it must pass for this machine
    /// while it holds the offer.
    let rolloutPercentage: Double?
    let offerAtPercentage: Double?
    /// A newer version `--max-version` or `--ignore-version` keeps back, and which.
    let heldVersion: String?
    let heldBy: String?
    /// The phased rollout of the newer version, when it has a window.
    let rollout: RolloutReport?

    struct SignatureReport: Encodable {
        let keyId: String
        let signedAt: String?
    }

    /// A rollout: from `start` to `end`, and the share of a fleet offered
    /// the version at the time decided for.
    struct RolloutReport: Encodable {
        let windowSeconds: Int64
        let start: String
        let end: String
        let position: Double
        let offeredFraction: Double
    }

    /// A message as its key beside its description's fields.
    struct MessageReport: Encodable {
        let notice: MessageNotice

        private enum CodingKeys: String, CodingKey { case key }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(notice.key, forKey: .key)
            try notice.description.encode(to: encoder)
        }
    }

    init(
        evaluation: Evaluation, settled: PhasedRollout.Settled, rollout: PhasedRollout.Settings, limits: KeepBackRules, now: Date,
        format: ResponseFormat, running: RunningVersion, request: String?, signature: AcceptedSignature? = nil
    ) {
        let decision = settled.decision
        status = decision.status
        updateAvailable = decision.updateAvailable
        updateRequired = decision.updateRequired
        currentVersion = running.key
        currentVersionNumber = running.number
        latestVersion = decision.latestVersion
        latestVersionNumber = decision.latestVersionNumber
        minimumSupportedVersionNumber = decision.minimumSupportedVersionNumber
        availableSince = decision.availableSince.map(RFC3339.format)
        let notes = [decision.note, limits.note(for: decision)].compactMap { $0 }
        note = notes.isEmpty ? nil : notes.joined(separator: "; ")
        description = decision.description
        messages = format == .turkcell ? evaluation.messages.map { MessageReport(notice: $0) } : nil
        self.request = request
        self.signature = signature.map { SignatureReport(keyId: $0.keyID, signedAt: $0.signedAt.map(RFC3339.format)) }
        pendingVersion = settled.pending?.version
        offerAt = settled.pending?.dueAt.map(RFC3339.format)
        rolloutPercentage = evaluation.decision.rolloutPercentage
        offerAtPercentage = settled.pending.flatMap { $0.capped ? $0.percentageNeeded : nil }
        heldVersion = settled.held?.version
        heldBy = settled.held?.by.rawValue
        let document = evaluation.decision
        let window = rollout.window(for: document)
        if document.updateAvailable, !document.updateRequired, window > 0, let version = PhasedRollout.version(of: document) {
            let start = document.availableSince ?? now
            self.rollout = RolloutReport(
                windowSeconds: Int64(min(window, 9e18)), start: RFC3339.format(start),
                end: RFC3339.format(min(start.addingTimeInterval(window), PhasedRollout.latestOffer)),
                position: rollout.position(for: version),
                offeredFraction: PhasedRollout.offeredFraction(announced: start, window: window, now: now)
            )
        } else {
            self.rollout = nil
        }
    }

    private enum CodingKeys: String, CodingKey {
        case status, updateAvailable, updateRequired, currentVersion, currentVersionNumber
        case latestVersion, latestVersionNumber, minimumSupportedVersionNumber, availableSince
        case note, description, messages, request, signature, pendingVersion, offerAt, rolloutPercentage, offerAtPercentage
        case heldVersion, heldBy, rollout
    }

    /// Absent values are written as `null` so that every key is always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(updateAvailable, forKey: .updateAvailable)
        try container.encode(updateRequired, forKey: .updateRequired)
        try container.encode(currentVersion, forKey: .currentVersion)
        try container.encode(currentVersionNumber, forKey: .currentVersionNumber)
        try container.encode(latestVersion, forKey: .latestVersion)
        try container.encode(latestVersionNumber, forKey: .latestVersionNumber)
        try container.encode(minimumSupportedVersionNumber, forKey: .minimumSupportedVersionNumber)
        try container.encode(availableSince, forKey: .availableSince)
        try container.encode(note, forKey: .note)
        try container.encode(description, forKey: .description)
        if let messages { try container.encode(messages, forKey: .messages) }
        if let request { try container.encode(request, forKey: .request) }
        if let signature { try container.encode(signature, forKey: .signature) }
        try container.encode(pendingVersion, forKey: .pendingVersion)
        try container.encode(offerAt, forKey: .offerAt)
        try container.encode(rolloutPercentage, forKey: .rolloutPercentage)
        try container.encode(offerAtPercentage, forKey: .offerAtPercentage)
        try container.encode(heldVersion, forKey: .heldVersion)
        try container.encode(heldBy, forKey: .heldBy)
        try container.encode(rollout, forKey: .rollout)
    }

    /// Why the pending version waits: its time, or the publisher's cap.
    private var waiting: String {
        if let offerAtPercentage {
            return "waiting for the rollout to pass \(PhasedOffer.shareToPass(offerAtPercentage)) %"
                + (rolloutPercentage.map { " (now \(PhasedOffer.shareShown($0)) %)" } ?? "")
        }
        return "offered here at \(offerAt ?? "?")"
    }

    func json() -> String {
        ConsoleJSON.text(self)
    }

    func text() -> String {
        func version(_ key: String?, _ number: UInt64?) -> String? {
            switch (key, number) {
            case let (key?, number?): "\(key) (\(number))"
            case let (key?, nil): key
            case let (nil, number?): "(\(number))"
            case (nil, nil): nil
            }
        }
        let rows: [(String, String?)] = [
            ("status", status.rawValue),
            ("current version", version(currentVersion.isEmpty ? "(unknown)" : currentVersion, currentVersionNumber)),
            ("latest version", version(latestVersion, latestVersionNumber)),
            ("minimum supported", minimumSupportedVersionNumber.map(String.init)),
            ("available since", availableSince),
            ("message", description?.message),
            ("what is new", description?.whatIsNew),
            ("warnings", description?.warnings),
            ("target url", description?.targetUrl),
            ("note", note),
            ("request", request),
            ("phased", pendingVersion.map { "\($0) \(waiting)" }),
            ("rollout cap", rolloutPercentage.map { "\(PhasedOffer.shareShown($0)) % of machines" }),
            ("kept back", heldVersion.map { "\($0) by \(heldBy ?? "?")" }),
            ("rollout", rollout.map {
                let percent = Int(($0.offeredFraction * 100).rounded(.down))
                // What time offers, and what of it a publisher's cap leaves (issue 51).
                let capped = rolloutPercentage.flatMap { cap in
                    cap < Double(percent) ? "; the rollout cap leaves \(PhasedOffer.shareShown(cap)) % of machines offered now" : nil
                }
                return "\($0.start) to \($0.end) (\($0.windowSeconds) s); this machine at \($0.position); "
                    + (capped.map { "\(percent)% of machines by time\($0)" } ?? "\(percent)% of machines offered now")
            }),
            ("signature", signature.map { "good, key \($0.keyId)" + ($0.signedAt.map { ", signed \($0)" } ?? ", no timestamp") }),
        ]
        let shown: [(String, String?)] = (messages ?? []).map { report in
            let texts: [String?] = [report.notice.description.title, report.notice.description.message]
            return ("shown message", texts.compactMap { $0 }.joined(separator: ": "))
        }
        // Every value may hold a server's text: escaped, never raw.
        return (rows + shown).compactMap { label, value in
            value.map { label + String(repeating: " ", count: max(1, 19 - label.count)) + DisplayText.escaped($0) }
        }.joined(separator: "\n")
    }
}
