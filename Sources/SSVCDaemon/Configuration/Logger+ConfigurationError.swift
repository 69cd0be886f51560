import Logging
import SSVCCore

extension Logger {
    /// The journal entry for an unusable configuration, with its `MESSAGE_ID`.
    func configurationError(_ error: ConfigurationError, _ consequence: String = "") {
        self.error("\(error.description)\(consequence)", metadata: [
            "MESSAGE_ID": "\(MessageID.configurationError.rawValue)", "SSVC_ERROR": "\(error.description)",
        ])
    }
}
