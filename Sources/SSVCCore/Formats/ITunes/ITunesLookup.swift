public import FoundationEssentials

/// An App Store lookup result (`…/lookup?id=…`): the latest version is
/// `results[0].version`.
public struct ITunesLookup: Sendable, Equatable {
    public let version: String
    public let releaseDate: Date?
    public let minimumOsVersion: String?
    public let releaseNotes: String?
    public let trackViewUrl: String?

    public init(parsing body: [UInt8]) throws(ResponseError) {
        let root = try ResponseError.parse(body)
        let first: JSONField?
        do {
            first = try Self.firstResult(root)
        } catch {
            throw .invalid(error)
        }
        guard let first else { throw .rejected("app not found") }
        do throws(DocumentError) {
            guard let version = first.member("version") else {
                throw DocumentError(path: "\(first.path).version", problem: "missing")
            }
            self.version = try version.versionString()
            if let field = first.member("currentVersionReleaseDate") {
                let text = try field.string()
                guard let date = RFC3339.parse(text) else { throw field.invalid("'\(text)' is not an RFC 3339 time") }
                releaseDate = date
            } else {
                releaseDate = nil
            }
            minimumOsVersion = try first.member("minimumOsVersion")?.string()
            releaseNotes = try first.member("releaseNotes")?.string()
            trackViewUrl = try first.member("trackViewUrl")?.string()
        } catch {
            throw .invalid(error)
        }
    }

    /// `results[0]`, or nil when the lookup found nothing (`resultCount` 0 or no results).
    private static func firstResult(_ root: JSONField) throws(DocumentError) -> JSONField? {
        try root.requireObject()
        let count = try root.member("resultCount")?.unsignedInteger()
        guard count != 0, let first = try root.member("results")?.elements().first else { return nil }
        try first.requireObject()
        return first
    }

    /// Compares the store's version with the running key under the app's
    /// scheme. With a minimum release age, a version younger than that is
    /// not offered yet (stores roll out gradually; operators wait for the
    /// first fixes).
    public func decide(for context: EvaluationContext) throws(ResponseError) -> Decision {
        var decision = Decision(
            decided: true, latestVersion: version, availableSince: releaseDate,
            description: UpdateDescription(whatIsNew: releaseNotes, targetUrl: trackViewUrl)
        )
        let scheme = context.running.scheme
        do {
            try scheme.validate(version)
        } catch {
            throw .invalid(DocumentError(path: "results[0].version", problem: error.description))
        }
        try decision.compare(context.running, with: version)
        if let days = context.minimumReleaseAgeDays, decision.updateAvailable {
            if let releaseDate {
                let ready = releaseDate.addingTimeInterval(TimeInterval(days) * 86_400)
                if context.now < ready {
                    decision.updateAvailable = false
                    decision.notes.append("\(version) is younger than \(days) days; offered from \(RFC3339.format(ready))")
                }
            } else {
                decision.notes.append("no release date: the minimum release age cannot apply")
            }
        }
        return decision
    }
}
