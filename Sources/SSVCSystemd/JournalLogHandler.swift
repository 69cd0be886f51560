@preconcurrency import Glibc
import Logging
import SSVCCore
import SSVCPosix

/// Where log entries go.
public enum LogTarget: String, Sendable, CaseIterable {
    /// The native journal; an entry journald refuses goes to standard error.
    case journal
    /// Standard error with `<N>` priority prefixes (what systemd reads from a
    /// service's standard error when it has no native journal connection).
    case stderr
    /// The journal when its socket exists, else standard error.
    case auto

    /// Whether entries should be sent to the journal first.
    public var usesJournal: Bool {
        switch self {
        case .journal: true
        case .stderr: false
        case .auto: Journal.isReachable
        }
    }
}

/// A swift-log handler that writes structured journal entries: the message,
/// the syslog priority, `SYSLOG_IDENTIFIER`, and each metadata key as a field
/// (`SSVC_APP`, `MESSAGE_ID`, …). It never crashes the logging path: when the
/// journal will not take an entry, the entry goes to standard error.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let identifier: String
    private let useJournal: Bool

    public init(identifier: String, target: LogTarget) {
        self.identifier = identifier
        self.useJournal = target.usesJournal
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// syslog(3) priorities: notice is 5, warning 4, and so on.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public func log(event: LogEvent) {
        let (level, message, file, function, line) = (event.level, event.message, event.file, event.function, event.line)
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.map { (name: Journal.fieldName($0.key), value: "\($0.value)") }.sorted { $0.name < $1.name }
        let priority = Self.priority(level)
        if useJournal {
            let entry = [
                ("MESSAGE", message.description), ("PRIORITY", String(priority)),
                ("SYSLOG_IDENTIFIER", identifier), ("CODE_FILE", file), ("CODE_LINE", String(line)),
                ("CODE_FUNC", function),
            ] + fields.map { ($0.name, $0.value) }
            let text = message.description
            let fallback: @Sendable () -> Void = { Self.writeStandardError(priority: priority, message: text, fields: fields) }
            // Queued or dropped, it is the sender's: only a refusal is ours.
            if case .failed = JournalSender.shared.send(Journal.Entry(entry.map { (name: $0.0, value: $0.1) }), fallback: fallback) { fallback() }
            return
        }
        Self.writeStandardError(priority: priority, message: message.description, fields: fields)
    }

    /// `<5>message [SSVC_APP=demo SSVC_STATUS=update-available]`, one line,
    /// with every control character escaped (a server's text can be in
    /// it, and standard error may be a terminal): the journal keeps the
    /// exact text, a terminal never gets it raw.
    static func writeStandardError(priority: Int, message: String, fields: [(name: String, value: String)]) {
        var line = "<\(priority)>" + DisplayText.escaped(message, limit: .max)
        if !fields.isEmpty {
            line += " [" + fields.map { "\($0.name)=\(DisplayText.escaped($0.value, limit: .max))" }.joined(separator: " ") + "]"
        }
        StandardErrorLines.shared.write(line)
    }
}
