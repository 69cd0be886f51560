/// Why a server response was rejected. A rejected response never replaces
/// the last good one.
public enum ResponseError: Error, Equatable, CustomStringConvertible {
    case notJSON(JSONSyntaxError)
    case invalid(DocumentError)
    /// The running version cannot be read under the app's version scheme.
    case runningVersion(VersionError)
    /// Well-formed but unusable (wrong package, app not found).
    case rejected(String)

    public var description: String {
        switch self {
        case let .notJSON(error): "\(error)"
        case let .invalid(error): "\(error)"
        case let .runningVersion(error): "running version \(error)"
        case let .rejected(reason): reason
        }
    }

    /// Parses a response body as JSON.
    static func parse(_ body: [UInt8]) throws(ResponseError) -> JSONField {
        do {
            return JSONField(root: try JSONParser.parse(body))
        } catch {
            throw .notJSON(error)
        }
    }
}
