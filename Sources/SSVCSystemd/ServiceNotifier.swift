import CSystemd

/// sd_notify(3): tells the service manager how the service is doing.
public enum ServiceNotifier {
    /// What became of a notification.
    ///
    /// | outcome          | meaning                                             |
    /// |------------------|-----------------------------------------------------|
    /// | `.notSupported`  | no `NOTIFY_SOCKET`: not run by a service manager    |
    /// | `.failed(errno)` | the socket is set but the message could not be sent |
    /// | `.sent`          | delivered                                           |
    public enum Outcome: Equatable, Sendable {
        case notSupported
        case failed(Int32)
        case sent
    }

    @discardableResult
    public static func notify(_ state: String) -> Outcome {
        let result = sd_notify(0, state)
        if result > 0 { return .sent }
        if result == 0 { return .notSupported }
        return .failed(-result)
    }

    /// The ping interval systemd expects (half its `WATCHDOG_USEC`), or nil
    /// when no watchdog is set for this process (`WATCHDOG_PID` names another).
    public static func watchdogPingInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds / 2))
    }
}
