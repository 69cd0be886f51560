extension ResponseFormat {
    /// Reads `body` and decides for `context`: the one entry point the daemon
    /// and `ssvcctl evaluate` share, so both decide alike.
    public func evaluate(_ body: [UInt8], context: EvaluationContext) throws(ResponseError) -> Evaluation {
        try unbounded(body, context: context).bounded()
    }

    private func unbounded(_ body: [UInt8], context: EvaluationContext) throws(ResponseError) -> Evaluation {
        switch self {
        case .ssvc:
            let decision = try SSVCResponse(parsing: body).decide(for: context.running)
            return Evaluation(decision: decision, messages: [])
        case .turkcell:
            let configuration = try TurkcellConfiguration(parsing: body)
            var decision = try configuration.decide(for: context)
            if configuration.ignoredMessages > 0 {
                decision.notes.append("\(configuration.ignoredMessages) messages past the first \(TurkcellConfiguration.maximumMessages) not read")
            }
            return Evaluation(
                decision: decision, messages: configuration.messagesDue(for: context), messageKeys: Set(configuration.messages.map(\.key))
            )
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
