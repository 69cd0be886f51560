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
        case .github:
            return Evaluation(decision: try GitHubReleases(parsing: body).decide(for: context), messages: [])
        case .json:
            guard let pointers = context.formatSettings.pointers else { throw .rejected("format json needs version-pointer") }
            return Evaluation(decision: try PointerDocument(parsing: body, settings: pointers).decide(for: context), messages: [])
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
        case .itunes, .json:
            return PercentEncoding.appendingQuery(to: base, extraQuery)
        case .github:
            // A page holds 30 releases unless asked for more: a monorepo's
            // product may be further down than that.
            let query = base.split(separator: "#", maxSplits: 1).first.flatMap { $0.split(separator: "?", maxSplits: 1).dropFirst().first } ?? ""
            let asked = query.split(separator: "&").contains { $0.hasPrefix("per_page=") } || extraQuery.contains { $0.name == "per_page" }
            return PercentEncoding.appendingQuery(to: base, (asked ? [] : [("per_page", "100")]) + extraQuery)
        }
    }

    /// The headers a request of this format sends besides `User-Agent`
    /// (an app's `headers` replace them): GitHub's media type and API
    /// version, JSON for the others.
    public var requestHeaders: [(name: String, value: String)] {
        switch self {
        case .github: [("Accept", "application/vnd.github+json"), ("X-GitHub-Api-Version", "2022-11-28")]
        case .ssvc, .turkcell, .itunes, .json: [("Accept", "application/json")]
        }
    }
}
