public import FoundationEssentials

/// Everything a decision depends on besides the response itself.
public struct EvaluationContext: Sendable {
    public var running: RunningVersion
    public var appID: String
    public var locale: LocaleSettings
    public var machine: MachineFacts
    /// The app's own filter properties; they override the standard ones.
    public var properties: [String: String]
    public var now: Date
    /// When each Turkcell message was shown, by message key.
    public var messageRecords: [String: MessageDisplayRecord]
    /// App Store versions younger than this are not offered yet.
    public var minimumReleaseAgeDays: UInt?
    /// `github`'s tag rules and `json`'s pointers.
    public var formatSettings: FormatSettings

    public init(
        running: RunningVersion, appID: String, locale: LocaleSettings, machine: MachineFacts = MachineFacts(),
        properties: [String: String] = [:], now: Date, messageRecords: [String: MessageDisplayRecord] = [:],
        minimumReleaseAgeDays: UInt? = nil, formatSettings: FormatSettings = FormatSettings()
    ) {
        self.running = running
        self.appID = appID
        self.locale = locale
        self.machine = machine
        self.properties = properties
        self.now = now
        self.messageRecords = messageRecords
        self.minimumReleaseAgeDays = minimumReleaseAgeDays
        self.formatSettings = formatSettings
    }
}

/// A decision, and the messages due with it.
public struct Evaluation: Sendable, Equatable {
    public var decision: Decision
    /// Turkcell messages to show now; empty for other formats.
    public var messages: [MessageNotice]
    /// Turkcell: the keys of every message the document lists, so that the
    /// display records of messages it no longer lists are dropped. Nil for
    /// other formats.
    public var messageKeys: Set<String>? = nil

    public init(decision: Decision, messages: [MessageNotice] = [], messageKeys: Set<String>? = nil) {
        self.decision = decision
        self.messages = messages
        self.messageKeys = messageKeys
    }

    /// Every server text cut to `DisplayText.maximumStoredBytes`: what is
    /// stored, served and logged has a bound whatever the document holds.
    func bounded() -> Evaluation {
        var copy = self
        copy.decision.description = decision.description?.bounded()
        copy.messages = messages.map { MessageNotice(key: $0.key, description: $0.description.bounded()) }
        return copy
    }
}

extension UpdateDescription {
    /// Each text cut to `DisplayText.maximumStoredBytes`.
    func bounded() -> UpdateDescription {
        let cut = { (text: String) in DisplayText.cut(text) }
        return UpdateDescription(
            message: message.map(cut), whatIsNew: whatIsNew.map(cut), warnings: warnings.map(cut),
            title: title.map(cut), targetUrl: targetUrl.map(cut)
        )
    }
}
