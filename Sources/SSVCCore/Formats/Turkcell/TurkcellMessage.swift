public import FoundationEssentials

/// One entry of `messages`: a text shown a limited number of times, in a
/// date window, no more often than a period.
public struct TurkcellMessage: Sendable, Equatable {
    public let key: String
    public let filters: TurkcellFilters
    public let descriptions: TurkcellDescriptions
    public let targetWebsiteUrl: String?
    public let maxDisplayCount: UInt64
    public let displayAfterDate: Date?
    public let displayBeforeDate: Date?
    public let displayPeriodInHours: UInt64

    init(_ field: JSONField) throws(DocumentError) {
        try field.requireObject()
        filters = try TurkcellFilters(field.member("filters"))
        descriptions = try TurkcellDescriptions(field.member("descriptions"))
        targetWebsiteUrl = try field.member("targetWebsiteUrl")?.lenientString()
        maxDisplayCount = try field.member("maxDisplayCount")?.lenientUnsignedInteger() ?? UInt64(Int32.max)
        displayPeriodInHours = try field.member("displayPeriodInHours")?.lenientUnsignedInteger() ?? 0
        displayAfterDate = try Self.date(field.member("displayAfterDate"))
        displayBeforeDate = try Self.date(field.member("displayBeforeDate"))
        if let id = try field.member("id")?.lenientString() {
            key = "id:\(id)"
        } else {
            // As the iOS library does: identity from the target and the texts.
            let identity = JSONValue.object([
                ("descriptions", field.value["descriptions"] ?? .null),
                ("targetWebsiteUrl", field.value["targetWebsiteUrl"] ?? .null),
            ])
            key = "hash:\(StableHash.hex(identity.canonicalText))"
        }
    }

    private static func date(_ field: JSONField?) throws(DocumentError) -> Date? {
        guard let field else { return nil }
        let text = try field.string()
        guard let date = CivilTime.parseDayOrMinute(text) else {
            throw field.invalid("'\(text)' is not a date: expected yyyy-MM-dd or yyyy-MM-dd HH:mm (UTC)")
        }
        return date
    }

    /// Filters match, `now` is inside the display window, the count is below
    /// the limit, and the period has passed since the last showing.
    public func isDue(at now: Date, properties: [String: String], record: MessageDisplayRecord) -> Bool {
        guard filters.match(properties) else { return false }
        if let after = displayAfterDate, now < after { return false }
        if let before = displayBeforeDate, now > before { return false }
        guard record.count < maxDisplayCount else { return false }
        if let last = record.lastShown, now.timeIntervalSince(last) < TimeInterval(displayPeriodInHours) * 3_600 {
            return false
        }
        return true
    }
}

/// How often and when a message was shown on this machine: kept in the
/// state file, keyed by `TurkcellMessage.key`.
public struct MessageDisplayRecord: Sendable, Equatable, Codable {
    public var count: UInt64
    public var lastShown: Date?

    public init(count: UInt64 = 0, lastShown: Date? = nil) {
        self.count = count
        self.lastShown = lastShown
    }

    /// The record after one more showing at `now`; the count stops at its
    /// largest value rather than wrapping.
    public func shown(at now: Date) -> MessageDisplayRecord {
        MessageDisplayRecord(count: count == .max ? count : count + 1, lastShown: now)
    }
}
