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

    struct SignatureReport: Encodable {
        let keyId: String
        let signedAt: String?
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

    init(evaluation: Evaluation, format: ResponseFormat, running: RunningVersion, request: String?, signature: AcceptedSignature? = nil) {
        let decision = evaluation.decision
        status = decision.status
        updateAvailable = decision.updateAvailable
        updateRequired = decision.updateRequired
        currentVersion = running.key
        currentVersionNumber = running.number
        latestVersion = decision.latestVersion
        latestVersionNumber = decision.latestVersionNumber
        minimumSupportedVersionNumber = decision.minimumSupportedVersionNumber
        availableSince = decision.availableSince.map(RFC3339.format)
        note = decision.note
        description = decision.description
        messages = format == .turkcell ? evaluation.messages.map { MessageReport(notice: $0) } : nil
        self.request = request
        self.signature = signature.map { SignatureReport(keyId: $0.keyID, signedAt: $0.signedAt.map(RFC3339.format)) }
    }

    private enum CodingKeys: String, CodingKey {
        case status, updateAvailable, updateRequired, currentVersion, currentVersionNumber
        case latestVersion, latestVersionNumber, minimumSupportedVersionNumber, availableSince
        case note, description, messages, request, signature
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
