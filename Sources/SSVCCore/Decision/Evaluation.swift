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

    public init(
        running: RunningVersion, appID: String, locale: LocaleSettings, machine: MachineFacts = MachineFacts(),
        properties: [String: String] = [:], now: Date, messageRecords: [String: MessageDisplayRecord] = [:],
        minimumReleaseAgeDays: UInt? = nil
    ) {
        self.running = running
        self.appID = appID
        self.locale = locale
        self.machine = machine
        self.properties = properties
        self.now = now
        self.messageRecords = messageRecords
        self.minimumReleaseAgeDays = minimumReleaseAgeDays
    }
}

/// A decision, and the messages due with it.
public struct Evaluation: Sendable, Equatable {
    public var decision: Decision
    /// Turkcell messages to show now; empty for other formats.
    public var messages: [MessageNotice]
}

extension ResponseFormat {
    /// Reads `body` and decides for `context`: the one entry point the daemon
    /// and `ssvcctl evaluate` share, so both decide alike.
    public func evaluate(_ body: [UInt8], context: EvaluationContext) throws(ResponseError) -> Evaluation {
        switch self {
        case .ssvc:
            let decision = try SSVCResponse(parsing: body).decide(for: context.running)
            return Evaluation(decision: decision, messages: [])
        case .turkcell:
            let configuration = try TurkcellConfiguration(parsing: body)
            let decision = try configuration.decide(for: context)
            return Evaluation(decision: decision, messages: configuration.messagesDue(for: context))
        case .itunes:
            return Evaluation(decision: try ITunesLookup(parsing: body).decide(for: context), messages: [])
        }
    }

    /// The URL a check of this format requests for the configured `base`.
    public func requestURL(
        base: String, context: EvaluationContext, extraQuery: [(name: String, value: String)] = []
    ) -> String {
        switch self {
        case .ssvc:
            return SSVCRequest.url(base: base, running: context.running, locale: context.locale, extraQuery: extraQuery)
        case .turkcell:
            return PercentEncoding.appendingQuery(
                to: base, [("appPackageName", context.appID), ("deviceOsName", "linux")] + extraQuery
            )
        case .itunes:
            return PercentEncoding.appendingQuery(to: base, extraQuery)
        }
    }
}
