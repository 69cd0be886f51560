public import FoundationEssentials

/// Everything a decision depends on besides the response itself.
public struct EvaluationContext: Sendable {
    public var running: RunningVersion
    public var appID: String
    public var locale: LocaleSettings
    /// Extra client properties (Turkcell filters), overriding gathered ones.
    public var properties: [String: String]
    public var now: Date

    public init(
        running: RunningVersion, appID: String, locale: LocaleSettings,
        properties: [String: String] = [:], now: Date
    ) {
        self.running = running
        self.appID = appID
        self.locale = locale
        self.properties = properties
        self.now = now
    }
}

extension ResponseFormat {
    /// Reads `body` and decides for `context`: the one entry point the daemon
    /// and `ssvcctl evaluate` share, so both decide alike.
    public func evaluate(_ body: [UInt8], context: EvaluationContext) throws(ResponseError) -> Decision {
        switch self {
        case .ssvc:
            return try SSVCResponse(parsing: body).decide(for: context.running)
        }
    }

    /// The URL a check of this format requests.
    public func requestURL(
        base: String, context: EvaluationContext, extraQuery: [(name: String, value: String)] = []
    ) -> String {
        switch self {
        case .ssvc:
            return SSVCRequest.url(base: base, running: context.running, locale: context.locale, extraQuery: extraQuery)
        }
    }
}
