/// One entry of `updates`.
public struct TurkcellUpdate: Sendable, Equatable {
    public let filters: TurkcellFilters
    public let descriptions: TurkcellDescriptions
    public let targetPackageUrl: String?
    public let targetWebsiteUrl: String?
    public let forceUpdate: Bool
    public let forceExit: Bool
    public let targetVersionCode: UInt64?
    public let targetVersionName: String?
    /// Where the entry is, for errors about it.
    let path: String

    init(_ field: JSONField) throws(DocumentError) {
        try field.requireObject()
        path = field.path
        filters = try TurkcellFilters(field.member("filters"))
        descriptions = try TurkcellDescriptions(field.member("descriptions"))
        targetPackageUrl = try field.member("targetPackageUrl")?.lenientString()
        targetWebsiteUrl = try field.member("targetWebsiteUrl")?.lenientString()
        forceUpdate = try field.member("forceUpdate")?.lenientFlag() ?? false
        forceExit = try field.member("forceExit")?.lenientFlag() ?? false
        targetVersionCode = try field.member("targetVersionCode")?.lenientUnsignedInteger()
        targetVersionName = try field.member("targetVersionName")?.lenientVersionString()
    }

    /// The package URL, else the web site, when either is non-empty.
    var targetURL: String? {
        [targetPackageUrl, targetWebsiteUrl].compactMap { $0 }.first { !$0.trimmingSpaces.isEmpty }
    }

    /// An entry counts only when it forces an exit or says where to update.
    var isValid: Bool {
        forceExit || targetURL != nil
    }

    /// Valid, filters match, and it targets a newer version than the running one
    /// (where it names one and the running one is known).
    func applies(to running: RunningVersion, properties: [String: String]) throws(ResponseError) -> Bool {
        guard isValid, filters.match(properties) else { return false }
        if let code = targetVersionCode, let current = running.number, code <= current { return false }
        if let name = targetVersionName, !running.key.isEmpty {
            do {
                try running.scheme.validate(name)
            } catch {
                throw .invalid(DocumentError(path: "\(path).targetVersionName", problem: error.description))
            }
            do {
                guard try running.scheme.compare(name, running.key) == .newer else { return false }
            } catch {
                throw .runningVersion(error)
            }
        }
        return true
    }
}
