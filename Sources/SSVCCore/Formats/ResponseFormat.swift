/// The server formats ssvc reads.
public enum ResponseFormat: String, Sendable, Codable, CaseIterable {
    /// SSVC's JSON (protocol 1, with the draft keys).
    case ssvc
}
