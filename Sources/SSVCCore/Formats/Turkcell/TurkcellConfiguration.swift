/// A Turkcell Updater configuration: update entries and messages, each
/// guarded by filters on the client's properties.
public struct TurkcellConfiguration: Sendable, Equatable {
    public let packageName: String
    public let updates: [TurkcellUpdate]
    public let messages: [TurkcellMessage]
    /// Messages past `maximumMessages`, counted and not read.
    public let ignoredMessages: Int
    /// The most messages read from one document.
    public static let maximumMessages = 100

    /// Reads a configuration document; an error names the path of the first
    /// bad value (`updates[2].filters.deviceOsVersion: expected a string, found an object`).
    public init(parsing body: [UInt8]) throws(ResponseError) {
        let root = try ResponseError.parse(body)
        do throws(DocumentError) {
            try root.requireObject()
            guard let name = root.member("packageName") else {
                throw DocumentError(path: "packageName", problem: "missing")
            }
            packageName = try name.string()
            var updates: [TurkcellUpdate] = []
            let updateFields = try root.member("updates")?.elements()
            for field in updateFields ?? [] {
                updates.append(try TurkcellUpdate(field))
            }
            var messages: [TurkcellMessage] = []
            let messageFields = try root.member("messages")?.elements() ?? []
            // A document's messages past the first hundred are not read: a
            // server cannot grow the state file and the journal without bound.
            for field in messageFields.prefix(Self.maximumMessages) {
                messages.append(try TurkcellMessage(field))
            }
            ignoredMessages = max(messageFields.count - Self.maximumMessages, 0)
            self.updates = updates
            self.messages = messages
        } catch {
            throw .invalid(error)
        }
    }

    /// Refuses a configuration written for another product: `packageName`,
    /// white space removed, must equal the app's id.
    public func requirePackage(_ appID: String) throws(ResponseError) {
        let name = String(packageName.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard name == appID else {
            throw .rejected("packageName '\(packageName)' does not match app-id '\(appID)'")
        }
    }

    /// The first update entry that applies decides: forced → required,
    /// otherwise available; none → up to date.
    public func decide(for context: EvaluationContext) throws(ResponseError) -> Decision {
        try requirePackage(context.appID)
        let properties = context.clientProperties
        var decision = Decision(decided: true)
        for update in updates {
            guard try update.applies(to: context.running, properties: properties) else { continue }
            decision.updateAvailable = true
            decision.updateRequired = update.forceUpdate || update.forceExit
            decision.latestVersion = update.targetVersionName
            decision.latestVersionNumber = update.targetVersionCode
            var description = update.descriptions.select(language: context.locale.language) ?? UpdateDescription()
            description.targetUrl = update.targetURL
            decision.description = description
            if update.targetVersionCode != nil && context.running.number == nil {
                decision.notes.append("targetVersionCode not compared: the running version number is unknown")
            }
            break
        }
        return decision
    }

    /// The messages due now, given when each was last shown.
    public func messagesDue(for context: EvaluationContext) -> [MessageNotice] {
        let properties = context.clientProperties
        // An entry listed twice (the same id) is one message, shown once.
        var seen: Set<String> = []
        return messages.compactMap { message in
            guard seen.insert(message.key).inserted else { return nil }
            let record = context.messageRecords[message.key] ?? MessageDisplayRecord()
            guard message.isDue(at: context.now, properties: properties, record: record) else { return nil }
            var description = message.descriptions.select(language: context.locale.language) ?? UpdateDescription()
            description.targetUrl = message.targetWebsiteUrl
            return MessageNotice(key: message.key, description: description)
        }
    }
}

/// A message the daemon is to show once now (one journal notice, one event).
public struct MessageNotice: Sendable, Equatable {
    /// The key of its display record: the entry's `id`, else a hash of it.
    public let key: String
    public let description: UpdateDescription

    public init(key: String, description: UpdateDescription) {
        self.key = key
        self.description = description
    }

    /// "title: message", or whichever of the two there is: the journal's
    /// and the hooks' text alike.
    public var text: String {
        [description.title, description.message].compactMap { $0 }.joined(separator: ": ")
    }
}
