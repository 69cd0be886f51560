public import FoundationEssentials

/// Any JSON document, read with JSON Pointers (format `json`): PyPI's
/// `/info/version`, npm's `/version`, a tags list's `/0/name`.
public struct PointerDocument: Sendable, Equatable {
    /// The app's pointers: `version-pointer` and the optional others.
    public struct Settings: Sendable, Equatable {
        public var version: JSONPointer
        /// RFC 3339 or Unix seconds: when the version was released.
        public var date: JSONPointer?
        /// Running below this version is `update-required`.
        public var minimumVersion: JSONPointer?
        /// Where the version is: the target URL.
        public var url: JSONPointer?
        /// The publisher's cap on a phased rollout, 0–100.
        public var rolloutPercentage: JSONPointer?

        public init(
            version: JSONPointer, date: JSONPointer? = nil, minimumVersion: JSONPointer? = nil, url: JSONPointer? = nil,
            rolloutPercentage: JSONPointer? = nil
        ) {
            self.version = version
            self.date = date
            self.minimumVersion = minimumVersion
            self.url = url
            self.rolloutPercentage = rolloutPercentage
        }
    }

    public var version: String
    public var date: Date?
    public var minimumVersion: String?
    public var url: String?
    public var rolloutPercentage: Double?

    /// Reads the values the pointers refer to. A pointer that refers to
    /// nothing, or to a value of the wrong type, rejects the document with
    /// an error naming the key and the pointer.
    public init(parsing body: [UInt8], settings: Settings) throws(ResponseError) {
        let root = try ResponseError.parse(body).value
        func field(_ key: String, _ pointer: JSONPointer) -> JSONField? {
            guard let value = pointer.resolve(root) else { return nil }
            return JSONField(value: value, path: "\(key) '\(pointer)'")
        }
        func nothing(_ key: String, _ pointer: JSONPointer) -> DocumentError {
            DocumentError(path: "\(key) '\(pointer)'", problem: "refers to nothing in the document")
        }
        do throws(DocumentError) {
            guard let version = field("version-pointer", settings.version) else { throw nothing("version-pointer", settings.version) }
            self.version = try version.versionString()
            if let pointer = settings.minimumVersion {
                guard let minimum = field("minimum-version-pointer", pointer) else { throw nothing("minimum-version-pointer", pointer) }
                minimumVersion = try minimum.versionString()
            }
            if let pointer = settings.url {
                guard let url = field("url-pointer", pointer) else { throw nothing("url-pointer", pointer) }
                self.url = try url.string()
            }
            if let pointer = settings.date {
                guard let date = field("date-pointer", pointer) else { throw nothing("date-pointer", pointer) }
                self.date = try Self.time(date)
            }
            // Unlike the others, a cap may come and go: nothing there, or
            // null, is no cap (a publisher resumes by removing it).
            if let pointer = settings.rolloutPercentage, let cap = field("rollout-percentage-pointer", pointer) {
                if case .null = cap.value {} else { rolloutPercentage = try cap.percentage() }
            }
        } catch {
            throw .invalid(error)
        }
    }

    /// An RFC 3339 string or Unix seconds, within the years RFC 3339 can write.
    static func time(_ field: JSONField) throws(DocumentError) -> Date {
        if case let .string(text) = field.value {
            guard let date = RFC3339.parse(text) else { throw field.invalid("'\(DisplayText.cut(text, bytes: 64))' is not an RFC 3339 time") }
            return date
        }
        guard case .number = field.value else { throw field.mismatch("an RFC 3339 time or Unix seconds") }
        let seconds = try field.unsignedInteger()
        guard Double(seconds) <= CivilTime.representableSeconds.upperBound else { throw field.invalid("\(seconds) is after the year 9999") }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Compares the document's version with the running one under the
    /// app's scheme; below the minimum version is required.
    public func decide(for context: EvaluationContext) throws(ResponseError) -> Decision {
        var decision = Decision(
            decided: true, latestVersion: version, availableSince: date, rolloutPercentage: rolloutPercentage,
            description: url.map { UpdateDescription(targetUrl: $0) }
        )
        let scheme = context.running.scheme
        let pointers = context.formatSettings.pointers
        func validated(_ text: String, key: String, pointer: JSONPointer?) throws(ResponseError) {
            do {
                try scheme.validate(text)
            } catch {
                throw .invalid(DocumentError(path: "\(key) '\(pointer?.description ?? "")'", problem: error.description))
            }
        }
        try validated(version, key: "version-pointer", pointer: pointers?.version)
        if let minimumVersion { try validated(minimumVersion, key: "minimum-version-pointer", pointer: pointers?.minimumVersion) }
        try decision.compare(context.running, with: version)
        if let minimumVersion, !context.running.key.isEmpty {
            do {
                decision.updateRequired = try scheme.compare(context.running.key, minimumVersion) == .older
            } catch {
                throw .runningVersion(error)
            }
        }
        return decision
    }
}
